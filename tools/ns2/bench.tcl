# Benchmark workloads, run in ns-2.35 for speed and outcome comparison with shortflow.
#
# usage: ns bench.tcl a|b|c
#   a: 1.6Mb/50ms bottleneck, DropTail limit 10,   10 bulk flows,      1000 s simulated
#   b: 45Mb/200ms bottleneck, DropTail limit 100,  20 bulk flows,       200 s simulated
#   c: 45Mb/50ms bottleneck,  DropTail limit 500,  10000 flows of 30 KB (30 packets
#      each, ns-2 `send 30000`), 100 s simulated
# Common: nodes r1, r2; bottleneck duplex-link r1-r2 (queue-limit both ways); every
# flow i has its own sender host s<i> (duplex-link s<i>-r1) and receiver host d<i>
# (duplex-link r2-d<i>), access links at 10x the bottleneck rate, 1 ms, DropTail with
# the default limit 50. Agent/TCP/Newreno with packetSize_ 1000 and window_ 1000,
# everything else at the ns-2.35 defaults (so syn_ true, windowInit_ 2, tcpTick_ 0.01);
# Agent/TCPSink (one ack per packet). Flow i of N starts at i/N s (a deterministic,
# evenly spaced grid in [0,1)). Routing is `rtproto Manual` (default routes towards the
# bottleneck, host routes at the routers) because ns-2's static all-pairs route
# computation is quadratic in memory and does not finish for workload c's 20002
# nodes; routing takes no simulated time, so it does not change the dynamics.
#
# At exit prints on stdout:
#   delivered_pkts N
#   peak_rss_kb K        (Linux only: VmHWM of this process from /proc/self/status; the
#                         parent's view, ru_maxrss, would include the memory of the
#                         process that forked ns before exec)
# N = sum over senders of the data packets cumulatively acknowledged = sum of ack_
# (the highest cumulative ack): with syn_ true sequence number 0 is the SYN, which
# carries no data, and data packets are numbered 1..; a sender that never got an ack
# (ack_ -1) or only the SYN's (ack_ 0) contributes 0.
# Extra information (drops, unfinished flows) goes to stderr.

set wl [lindex $argv 0]
switch -- $wl {
    a { set bw 1.6e6; set dly 50ms; set qlim 10;  set nflows 10;    set dur 1000.0; set bytes -1 }
    b { set bw 45e6;  set dly 200ms; set qlim 100; set nflows 20;    set dur 200.0;  set bytes -1 }
    c { set bw 45e6;  set dly 50ms; set qlim 500; set nflows 10000; set dur 100.0;  set bytes 30000 }
    default { puts stderr "usage: ns bench.tcl a|b|c"; exit 1 }
}
set abw [expr {10 * $bw}]

set ns [new Simulator]
$ns rtproto Manual
proc rt {node args} { eval [list [$node get-module Manual] add-route-to-adj-node] $args }
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 $bw $dly DropTail
$ns queue-limit $r1 $r2 $qlim
$ns queue-limit $r2 $r1 $qlim
rt $r1 -default $r2
rt $r2 -default $r1

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 1000

for {set i 0} {$i < $nflows} {incr i} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $r1 $abw 1ms DropTail
    $ns duplex-link $r2 $d $abw 1ms DropTail
    rt $s -default $r1
    rt $d -default $r2
    rt $r1 $s
    rt $r2 $d
    set tcp($i) [new Agent/TCP/Newreno]
    set snk [new Agent/TCPSink]
    $ns attach-agent $s $tcp($i)
    $ns attach-agent $d $snk
    $ns connect $tcp($i) $snk
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp($i)
    set st [expr {double($i) / $nflows}]
    if {$bytes < 0} {
        $ns at $st "$ftp start"
    } else {
        $ns at $st "$ftp send $bytes"
    }
}
set qm [$ns monitor-queue $r1 $r2 0]

proc finish {} {
    global nflows tcp qm bytes
    set n 0
    set unfinished 0
    for {set i 0} {$i < $nflows} {incr i} {
        set a [$tcp($i) set ack_]
        if {$a > 0} { incr n $a }
        if {$bytes > 0 && $a < $bytes / 1000} { incr unfinished }
    }
    puts stderr "bottleneck r1->r2: arrivals [$qm set parrivals_] departures [$qm set pdepartures_] drops [$qm set pdrops_]"
    if {$bytes > 0} { puts stderr "unfinished transfers: $unfinished of $nflows" }
    puts "delivered_pkts $n"
    if {[file readable /proc/self/status]} {
        set f [open /proc/self/status]
        foreach line [split [read $f] "\n"] {
            if {[regexp {^VmHWM:\s+(\d+)\s+kB} $line -> kb]} { puts "peak_rss_kb $kb" }
        }
        close $f
    }
    exit 0
}
$ns at $dur "finish"
$ns run
