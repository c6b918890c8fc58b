# Deterministic dumbbell scenario for shortflow's per-ack golden tests.
#
# usage: ns dumbbell.tcl VARIANT NFLOWS SINK [OUTPREFIX]
#   VARIANT  tahoe | reno | newreno   (Agent/TCP, Agent/TCP/Reno, Agent/TCP/Newreno)
#   NFLOWS   number of FTP flows (1 and 4 are checked in)
#   SINK     plain | delack           (Agent/TCPSink, Agent/TCPSink/DelAck)
#   OUTPREFIX  where to write OUTPREFIX.acks.csv and OUTPREFIX.summary.json
#              (default: dumbbell_<variant>_<n>_<sink> in the current directory)
#
# Topology: r1 --1.6Mb/50ms DropTail, queue-limit 10 both ways-- r2.
# Flow i: s<i> --10Mb/1ms DropTail (limit 50)-- r1 ... r2 --10Mb/1ms-- d<i>.
# Every Agent/TCP knob is the ns-2.35 default except window_ 100.
# Flow i's FTP (infinite) starts at 0.1 + 0.37*i s; the run stops at 60 s.
#
# Ack times: ns-2's trace file rounds times to 6 decimals (basetrace.h PRECISION
# 1.0E+6, compiled in). To get full precision we turn on the trace object's
# callback_ and, in its `handle` method (called synchronously while the packet is
# being traced), read [$ns now] (a C double, printed with %.9f). Each callback line
# is cross-checked against the 6-decimal trace time.

if {[llength $argv] < 3} {
    puts stderr "usage: ns dumbbell.tcl tahoe|reno|newreno NFLOWS plain|delack \[OUTPREFIX\]"
    exit 1
}
set variant [lindex $argv 0]
set nflows  [lindex $argv 1]
set sinkkind [lindex $argv 2]
set prefix [expr {[llength $argv] > 3 ? [lindex $argv 3] : "dumbbell_${variant}_${nflows}_${sinkkind}"}]

switch -- $variant {
    tahoe   { set tcpcls Agent/TCP }
    reno    { set tcpcls Agent/TCP/Reno }
    newreno { set tcpcls Agent/TCP/Newreno }
    default { puts stderr "bad VARIANT $variant"; exit 1 }
}
switch -- $sinkkind {
    plain  { set sinkcls Agent/TCPSink }
    delack { set sinkcls Agent/TCPSink/DelAck }
    default { puts stderr "bad SINK $sinkkind"; exit 1 }
}

set duration 60.0
set ns [new Simulator]

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 1.6Mb 50ms DropTail
$ns queue-limit $r1 $r2 10
$ns queue-limit $r2 $r1 10

set acksf [open $prefix.acks.csv w]
puts $acksf "flow,time_s,ackno"
set nulltrace [open /dev/null w]

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

for {set i 0} {$i < $nflows} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 1ms DropTail

    set tcp($i) [new $tcpcls]
    $tcp($i) set window_ 100
    $tcp($i) set fid_ $i
    set snk($i) [new $sinkcls]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $snk($i)
    $ns connect $tcp($i) $snk($i)

    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [expr {0.1 + 0.37 * $i}]
    $ns at $start($i) "\$ftp($i) start"

    # acks arriving at the sender: 'r' events of the reverse access link r1 -> s_i
    $ns trace-queue $r1 $s($i) $nulltrace
    set rt [[$ns link $r1 $s($i)] set rcvT_]
    $rt set callback_ 1
    $rt proc handle {line} "on_ack_recv $i \$line"
    # data segments arriving at the sink (duplicates included)
    set rcvd($i) 0
    $ns trace-queue $r2 $d($i) $nulltrace
    set rt [[$ns link $r2 $d($i)] set rcvT_]
    $rt set callback_ 1
    $rt proc handle {line} "on_data_recv $i \$line"
}

# Queue monitors on every simplex link (no periodic sampling: qtrace 0).
set links {}
proc mon {a an b bn} {
    global ns links qm
    set qm($an->$bn) [$ns monitor-queue $a $b 0]
    lappend links "$an->$bn"
}
mon $r1 r1 $r2 r2
mon $r2 r2 $r1 r1
for {set i 0} {$i < $nflows} {incr i} {
    mon $s($i) s$i $r1 r1
    mon $r1 r1 $s($i) s$i
    mon $r2 r2 $d($i) d$i
    mon $d($i) d$i $r2 r2
}

proc finish {} {
    global ns acksf nflows tcp snk qm links prefix variant sinkkind duration rcvd start boot
    close $acksf
    set o [open $prefix.summary.json w]
    puts $o "\{"
    puts $o "  \"scenario\": \"dumbbell_${variant}_${nflows}_${sinkkind}\","
    puts $o "  \"ns2_version\": \"[ns-version]\","
    puts $o "  \"duration_s\": $duration,"
    puts $o "  \"notes\": \"ack times in the .acks.csv are \[ns now\] printed with %.9f; cwnd is ns-2's TracedDouble text (%g, 6 significant digits); ssthresh is an integer; links: QueueMonitor counters (arrivals include drops, departures = dequeued for transmission); flows: sender ack_ ndatapack_ ... at the end, sink_bytes = TCPSink bytes_, sink_pkts_received = data packets (SYN included, duplicates included) delivered to the sink\","
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
        puts -nonewline $o "    \{\"flow\": $i, \"start_s\": [format %.15g $start($i)], \"ack\": [$t set ack_], \"bytes_acked\": $bytes_acked, \"maxseq\": [$t set maxseq_], \"ndatapack\": [$t set ndatapack_], \"ndatabytes\": [$t set ndatabytes_], \"nrexmitpack\": [$t set nrexmitpack_], \"nrexmitbytes\": [$t set nrexmitbytes_], \"nackpack\": [$t set nackpack_], \"cwnd\": [$t set cwnd_], \"ssthresh\": [$t set ssthresh_], \"sink_bytes\": [$snk($i) set bytes_], \"sink_pkts_received\": $rcvd($i), \"boot_time_s\": [format %.17g $boot($i)]\}"
        puts $o [expr {$i < $nflows - 1 ? "," : ""}]
    }
    puts $o "  \]"
    puts $o "\}"
    close $o
    exit 0
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
replay_boot_times
$ns at $duration "finish"
$ns run
