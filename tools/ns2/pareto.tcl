# Statistical golden: one NewReno FTP flow plus 10 Pareto ON/OFF UDP sources crossing
# the dumbbell bottleneck, one run per seed.
#
# usage: ns pareto.tcl SEED [DURATION_S]
# prints one JSON object (one line) with the per-seed results on stdout.
#
# Topology: r1 --1.6Mb/50ms DropTail, queue-limit 10 both ways-- r2.
# TCP flow 0: s0 --10Mb/1ms-- r1 ... r2 --10Mb/1ms-- d0 (access links DropTail, limit 50);
#   Agent/TCP/Newreno at ns-2.35 defaults except window_ 100, Agent/TCPSink,
#   FTP (infinite) started at 0.1 s.
# UDP sources j = 0..9: u<j> --10Mb/1ms-- r1 ... r2 --10Mb/1ms-- e<j>;
#   Agent/UDP -> Agent/Null, Application/Traffic/Pareto at the ns-2.35 defaults
#   (rate_ 64Kb, packetSize_ 210, burst_time_ 500ms, idle_time_ 500ms, shape_ 1.5),
#   source j started at 0.05 * j s (deterministic); its randomness comes from ns-2's
#   default RNG, seeded with `ns-random SEED`.
# Nodes are created in the order r1 r2 s0 d0 u0 e0 u1 e1 ... u9 e9.
# "UDP packets sent" = packets arriving at the queue of link u<j> -> r1 (QueueMonitor
# parrivals_; a UDP packet enters that queue at the instant it is sent).
# "UDP packets received" = 'r' events of link r2 -> e<j> (packets handed to the Null
# agent), counted by a trace callback.

set seed [lindex $argv 0]
set duration [expr {[llength $argv] > 1 ? [lindex $argv 1] : 60.0}]
set nudp 10
ns-random $seed

set ns [new Simulator]
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 1.6Mb 50ms DropTail
$ns queue-limit $r1 $r2 10
$ns queue-limit $r2 $r1 10

set s0 [$ns node]
set d0 [$ns node]
$ns duplex-link $s0 $r1 10Mb 1ms DropTail
$ns duplex-link $r2 $d0 10Mb 1ms DropTail
set tcp [new Agent/TCP/Newreno]
$tcp set window_ 100
set snk [new Agent/TCPSink]
$ns attach-agent $s0 $tcp
$ns attach-agent $d0 $snk
$ns connect $tcp $snk
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.1 "$ftp start"

set nulltrace [open /dev/null w]
proc on_udp_recv {j line} {
    global urcvd
    if {[string index [string trim $line] 0] eq "r"} { incr urcvd($j) }
}
for {set j 0} {$j < $nudp} {incr j} {
    set u($j) [$ns node]
    set e($j) [$ns node]
    $ns duplex-link $u($j) $r1 10Mb 1ms DropTail
    $ns duplex-link $r2 $e($j) 10Mb 1ms DropTail
    set udp($j) [new Agent/UDP]
    $udp($j) set fid_ [expr {$j + 1}]
    set nul($j) [new Agent/Null]
    $ns attach-agent $u($j) $udp($j)
    $ns attach-agent $e($j) $nul($j)
    $ns connect $udp($j) $nul($j)
    set par($j) [new Application/Traffic/Pareto]
    $par($j) attach-agent $udp($j)
    $ns at [expr {0.05 * $j}] "\$par($j) start"
    set qmu($j) [$ns monitor-queue $u($j) $r1 0]
    set urcvd($j) 0
    $ns trace-queue $r2 $e($j) $nulltrace
    set rt [[$ns link $r2 $e($j)] set rcvT_]
    $rt set callback_ 1
    $rt proc handle {line} "on_udp_recv $j \$line"
}
set qm [$ns monitor-queue $r1 $r2 0]
set qmr [$ns monitor-queue $r2 $r1 0]

proc finish {} {
    global ns tcp snk qm qmr seed duration nudp qmu urcvd
    set us {}; set ur {}
    set tot_s 0; set tot_r 0
    for {set j 0} {$j < $nudp} {incr j} {
        lappend us [$qmu($j) set parrivals_]
        lappend ur $urcvd($j)
        incr tot_s [$qmu($j) set parrivals_]
        incr tot_r $urcvd($j)
    }
    puts "\{\"seed\": $seed, \"duration_s\": $duration, \"drops\": \{\"r1->r2\": [$qm set pdrops_], \"r2->r1\": [$qmr set pdrops_]\}, \"tcp\": \{\"ack\": [$tcp set ack_], \"ndatapack\": [$tcp set ndatapack_], \"nrexmitpack\": [$tcp set nrexmitpack_], \"sink_bytes\": [$snk set bytes_]\}, \"udp_sent\": \[[join $us ", "]\], \"udp_received\": \[[join $ur ", "]\], \"udp_sent_total\": $tot_s, \"udp_received_total\": $tot_r\}"
    exit 0
}
$ns at $duration "finish"
$ns run
