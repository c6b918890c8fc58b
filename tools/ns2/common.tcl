# Shared parts of the ns-2.35 scripts in this folder, sourced by them:
#   source [file join [file dirname [info script]] common.tcl]
#
# 1. The per-ack golden dumbbell (dumbbell.tcl, ecn_red.tcl): agent classes from the
#    command line, the flows with their per-ack and per-data trace callbacks, queue
#    monitors on every link, the summary's links and flows, the boot-time replay.
# 2. The thesis ch. 9 asymmetric topology (asym_e92.tcl, asym_e93.tcl).
#
# Every proc creates its ns objects in the order the scripts did before they shared
# this file: the goldens regenerated from them are byte-identical (tools/ns2/README.md).

# ---- 1. per-ack golden dumbbell ------------------------------------------------------

# The Agent/TCP class of VARIANT, one of `allowed` (tahoe, reno, newreno).
proc tcp_class {variant allowed} {
    set cls [dict create tahoe Agent/TCP reno Agent/TCP/Reno newreno Agent/TCP/Newreno]
    if {$variant ni $allowed} { puts stderr "bad VARIANT $variant"; exit 1 }
    return [dict get $cls $variant]
}

# The sink class of SINK: plain | delack.
proc sink_class {sinkkind} {
    switch -- $sinkkind {
        plain  { return Agent/TCPSink }
        delack { return Agent/TCPSink/DelAck }
        default { puts stderr "bad SINK $sinkkind"; exit 1 }
    }
}

# The simulator (global ns), the bottleneck r1 <-> r2 (1.6Mb/50ms, queue QTYPE holding
# LIMIT packets both ways), PREFIX.acks.csv (global acksf) and the /dev/null trace
# (global nulltrace).
proc dumbbell_core {qtype limit prefix} {
    global ns r1 r2 acksf nulltrace
    set ns [new Simulator]
    set r1 [$ns node]
    set r2 [$ns node]
    $ns duplex-link $r1 $r2 1.6Mb 50ms $qtype
    $ns queue-limit $r1 $r2 $limit
    $ns queue-limit $r2 $r1 $limit
    set acksf [open $prefix.acks.csv w]
    puts $acksf "flow,time_s,ackno"
    set nulltrace [open /dev/null w]
}

# Called by a Trace object's C++ code (callback_ 1) with the formatted line.
# Line format (show_tcphdr_ 0): ev time src dst type size flags fid src.port dst.port seqno uid
proc on_ack_recv {flow line} {
    global ns acksf
    set f [split [string trim $line] " "]
    if {[lindex $f 0] ne "r" || [lindex $f 4] ne "ack"} return
    set now [$ns now]
    if {abs($now - [lindex $f 1]) > 0.51e-6} {
        puts stderr "trace time [lindex $f 1] disagrees with \[ns now\] $now"
        exit 2
    }
    puts $acksf "$flow,[format %.9f $now],[lindex $f 10]"
}
proc on_data_recv {flow line} {
    global rcvd
    set f [split [string trim $line] " "]
    if {[lindex $f 0] eq "r" && [lindex $f 4] eq "tcp"} { incr rcvd($flow) }
}

# NFLOWS flows s<i> --10Mb/1ms-- r1 ... r2 --10Mb/1ms-- d<i>, each an FTP (infinite) on
# a TCPCLS agent with the knobs KNOBS (a list of var value) and fid_ i, to a SINKCLS
# sink, starting at START0 + 0.37*i s. Acks arriving at the sender ('r' events of the
# reverse access link r1 -> s_i) go to on_ack_recv, data segments arriving at the sink
# (duplicates included) are counted by on_data_recv. Globals: s d tcp snk ftp start rcvd.
proc dumbbell_flows {nflows tcpcls knobs sinkcls start0} {
    global ns r1 r2 s d tcp snk ftp start rcvd nulltrace
    for {set i 0} {$i < $nflows} {incr i} {
        set s($i) [$ns node]
        set d($i) [$ns node]
        $ns duplex-link $s($i) $r1 10Mb 1ms DropTail
        $ns duplex-link $r2 $d($i) 10Mb 1ms DropTail

        set tcp($i) [new $tcpcls]
        foreach {var value} $knobs { $tcp($i) set $var $value }
        $tcp($i) set fid_ $i
        set snk($i) [new $sinkcls]
        $ns attach-agent $s($i) $tcp($i)
        $ns attach-agent $d($i) $snk($i)
        $ns connect $tcp($i) $snk($i)

        set ftp($i) [new Application/FTP]
        $ftp($i) attach-agent $tcp($i)
        set start($i) [expr {$start0 + 0.37 * $i}]
        $ns at $start($i) "\$ftp($i) start"

        $ns trace-queue $r1 $s($i) $nulltrace
        set rt [[$ns link $r1 $s($i)] set rcvT_]
        $rt set callback_ 1
        $rt proc handle {line} "on_ack_recv $i \$line"
        set rcvd($i) 0
        $ns trace-queue $r2 $d($i) $nulltrace
        set rt [[$ns link $r2 $d($i)] set rcvT_]
        $rt set callback_ 1
        $rt proc handle {line} "on_data_recv $i \$line"
    }
}

# Queue monitors on every simplex link of the dumbbell (no periodic sampling: qtrace 0).
proc mon {a an b bn} {
    global ns links qm
    set qm($an->$bn) [$ns monitor-queue $a $b 0]
    lappend links "$an->$bn"
}
proc monitor_dumbbell {nflows} {
    global r1 r2 s d links
    set links {}
    mon $r1 r1 $r2 r2
    mon $r2 r2 $r1 r1
    for {set i 0} {$i < $nflows} {incr i} {
        mon $s($i) s$i $r1 r1
        mon $r1 r1 $s($i) s$i
        mon $r2 r2 $d($i) d$i
        mon $d($i) d$i $r2 r2
    }
}

# Close the ack log and write PREFIX.summary.json: scenario, ns-2 version, DURATION,
# the members MEMBERS (a list of name and JSON text), the links' queue monitors and
# the flows' end state; EXTRA lists sender variables reported after nackpack (e.g.
# necnresponses).
proc write_summary {prefix scenario duration members nflows extra} {
    global acksf links qm tcp snk start rcvd boot
    close $acksf
    set o [open $prefix.summary.json w]
    puts $o "\{"
    puts $o "  \"scenario\": \"$scenario\","
    puts $o "  \"ns2_version\": \"[ns-version]\","
    puts $o "  \"duration_s\": $duration,"
    foreach {name value} $members { puts $o "  \"$name\": $value," }
    puts $o "  \"links\": \{"
    set n [llength $links]; set k 0
    foreach l $links {
        incr k
        set m $qm($l)
        puts -nonewline $o "    \"$l\": \{\"drops\": [$m set pdrops_], \"arrivals\": [$m set parrivals_], \"departures\": [$m set pdepartures_], \"bytes_departed\": [$m set bdepartures_]\}"
        puts $o [expr {$k < $n ? "," : ""}]
    }
    puts $o "  \},"
    puts $o "  \"flows\": \["
    for {set i 0} {$i < $nflows} {incr i} {
        set t $tcp($i)
        # syn_ true: seqno 0 is the SYN (no payload); data packets are 1..ack_
        set acked [expr {max([$t set ack_], 0)}]
        set bytes_acked [expr {$acked * [$t set packetSize_]}]
        set more ""
        foreach v $extra { append more ", \"$v\": [$t set ${v}_]" }
        puts -nonewline $o "    \{\"flow\": $i, \"start_s\": [format %.15g $start($i)], \"ack\": [$t set ack_], \"bytes_acked\": $bytes_acked, \"maxseq\": [$t set maxseq_], \"ndatapack\": [$t set ndatapack_], \"ndatabytes\": [$t set ndatabytes_], \"nrexmitpack\": [$t set nrexmitpack_], \"nrexmitbytes\": [$t set nrexmitbytes_], \"nackpack\": [$t set nackpack_]$more, \"cwnd\": [$t set cwnd_], \"ssthresh\": [$t set ssthresh_], \"sink_bytes\": [$snk($i) set bytes_], \"sink_pkts_received\": $rcvd($i), \"boot_time_s\": [format %.17g $boot($i)]\}"
        puts $o [expr {$i < $nflows - 1 ? "," : ""}]
    }
    puts $o "  \]"
    puts $o "\}"
    close $o
}

# boot_time_: every TCP agent draws Random::uniform(tcpTick_) from ns-2's default RNG
# when `$ns run` resets it (tcp.cc reset()); it shifts how RTT samples round to ticks,
# hence every RTO. Nodes reset their agents in `array names Node_` order (ns-lib.tcl
# Simulator run). We reseed the default RNG, replay exactly those draws here to learn
# each flow's value, reseed again so the run's own draws are the same, and record them
# in the summary; our configs carry them as tcp.boot_time_s.
proc replay_boot_times {} {
    global ns defaultRNG tcp nflows boot
    $ns instvar Node_
    for {set i 0} {$i < $nflows} {incr i} { set flowof($tcp($i)) $i }
    $defaultRNG seed 1
    foreach nn [array names Node_] {
        foreach a [$Node_($nn) set agents_] {
            if {[info exists flowof($a)]} {
                set boot($flowof($a)) [$defaultRNG uniform 0 [$a set tcpTick_]]
            }
        }
    }
    $defaultRNG seed 1
}

# ---- 2. thesis ch. 9 asymmetric access (E9.2, E9.3) ----------------------------------

# The spec's parameters common to E9.2 and E9.3 (1000 B segments, 100-packet window,
# IW 1, no handshake, 18 B acks, delayed acks at 100 ms).
proc asym_defaults {} {
    Agent/TCP set packetSize_ 1000
    Agent/TCP set window_ 100
    Agent/TCP set windowInit_ 1
    Agent/TCP set syn_ false
    Agent/TCP set delay_growth_ false
    Agent/TCPSink set packetSize_ 18
    Agent/TCPSink/DelAck set interval_ 0.1
}

# Nodes r1 r2 s1 c1 c2 s2: downstream r1 -> r2 10Mb/5ms DropTail, upstream r2 -> r1
# UPBW/85ms with queue UPQ, both limited to 20 packets; hosts on 10Mb/1ms access links.
proc asym_topology {upbw upq} {
    global ns r1 r2 s1 c1 c2 s2
    set r1 [$ns node]; set r2 [$ns node]
    set s1 [$ns node]; set c1 [$ns node]; set c2 [$ns node]; set s2 [$ns node]
    $ns simplex-link $r1 $r2 10Mb 5ms DropTail
    $ns simplex-link $r2 $r1 $upbw 85ms $upq
    $ns queue-limit $r1 $r2 20
    $ns queue-limit $r2 $r1 20
    foreach {h r} [list $s1 $r1 $s2 $r1 $c1 $r2 $c2 $r2] { $ns duplex-link $h $r 10Mb 1ms DropTail }
}

# A semantic packet queue on the upstream link (ack filtering / acks first).
proc asym_semantic_queue {filteracks acksfirst} {
    global ns r1 r2
    set q [[$ns link $r2 $r1] queue]
    set spq [new PacketQueue/Semantic]
    $spq set filteracks_ $filteracks
    $spq set replace_head_ false
    $spq set acksfirst_ $acksfirst
    $q packetqueue-attach $spq
}

# The downstream connection s1 -> c1 (sender adaptation with maxburst 4 and g 1/8 if
# SA, else NewReno) and the upstream NewReno c2 -> s2, both to delayed-ack sinks.
# Globals: down dsink up usink.
proc asym_connections {sa} {
    global ns s1 c1 c2 s2 down dsink up usink
    if {$sa} {
        set down [new Agent/TCP/Newreno/Asym]
        $down set maxburst_ 4
        $down set g_ 0.125
    } else {
        set down [new Agent/TCP/Newreno]
    }
    set dsink [new Agent/TCPSink/DelAck]
    $ns attach-agent $s1 $down; $ns attach-agent $c1 $dsink; $ns connect $down $dsink
    set up [new Agent/TCP/Newreno]; set usink [new Agent/TCPSink/DelAck]
    $ns attach-agent $c2 $up; $ns attach-agent $s2 $usink; $ns connect $up $usink
}
