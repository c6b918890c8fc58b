# Statistical golden: the dumbbell of dumbbell.tcl with 4 NewReno flows and a RED
# bottleneck, one run per seed.
#
# usage: ns red.tcl SEED [DURATION_S]
# prints one JSON object (one line) with the per-seed results on stdout.
#
# Topology: r1 --1.6Mb/50ms Queue/RED (both directions), limit_ 40-- r2;
# flow i: s<i> --10Mb/1ms DropTail(50)-- r1 ... r2 --10Mb/1ms DropTail(50)-- d<i>.
# RED is left at every ns-2.35 default (bytes_ true, queue_in_bytes_ true, so the
# limit is 40 * mean_pktsize_ 500 = 20000 bytes: an arrival is dropped when the
# waiting packets already total >= 20000 bytes, so up to 20 packets of 1040 bytes wait;
# thresh_ 0 / maxthresh_ 0 -> automatic 5 / 15 "packets" of 500 bytes; q_weight_ -1
# -> automatic; gentle_ true; wait_ true; linterm_ 10; setbit_ false; drop_tail_ true).
# TCP: Agent/TCP/Newreno, every knob at the ns-2.35 default except window_ 100;
# sinks Agent/TCPSink. FTP (infinite) on each flow; flow i starts at a time drawn
# uniformly in [0, 2) s from an RNG seeded with SEED (drawn in flow order,
# rounded to 1 us so our config can carry the exact same value); RED's own
# randomness comes from ns-2's default RNG, seeded with `ns-random SEED`.

set seed [lindex $argv 0]
set duration [expr {[llength $argv] > 1 ? [lindex $argv 1] : 60.0}]
set nflows 4
ns-random $seed
set rng [new RNG]
$rng seed $seed

set ns [new Simulator]
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 1.6Mb 50ms RED
$ns queue-limit $r1 $r2 40
$ns queue-limit $r2 $r1 40

for {set i 0} {$i < $nflows} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 1ms DropTail
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set window_ 100
    $tcp($i) set fid_ $i
    set snk($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $snk($i)
    $ns connect $tcp($i) $snk($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [expr {round([$rng uniform 0 2] * 1e6) / 1e6}]
    $ns at $start($i) "\$ftp($i) start"
}
set qm [$ns monitor-queue $r1 $r2 0]
set qmr [$ns monitor-queue $r2 $r1 0]

proc finish {} {
    global ns nflows tcp snk start qm qmr seed duration
    set fl {}
    for {set i 0} {$i < $nflows} {incr i} {
        set t $tcp($i)
        lappend fl "\{\"flow\": $i, \"start_s\": [format %.17g $start($i)], \"ack\": [$t set ack_], \"ndatapack\": [$t set ndatapack_], \"nrexmitpack\": [$t set nrexmitpack_], \"sink_bytes\": [$snk($i) set bytes_]\}"
    }
    puts "\{\"seed\": $seed, \"duration_s\": $duration, \"drops\": \{\"r1->r2\": [$qm set pdrops_], \"r2->r1\": [$qmr set pdrops_]\}, \"arrivals\": \{\"r1->r2\": [$qm set parrivals_]\}, \"flows\": \[[join $fl ", "]\]\}"
    exit 0
}
$ns at $duration "finish"
$ns run
