# ns-2.35 oracle for thesis ch. 9 E9.2 (Table 9.1), rows that ns-2.35 can run as the thesis
# describes: tcp (drop-tail), af and af-afirst (Agent/TCP/Newreno/Asym + PacketQueue/Semantic
# with filteracks_/acksfirst_). ACC rows are not run (Debian's build: sink acks not ECT).
# Same topology and sizes as scenarios/asym/e92_twoway.toml (spec parameters).
# usage: ns asym_e92.tcl SCHEME UPSTART_S WINDOW_S SEED
#   SCHEME: tcp | af | af-afirst
# prints: down_bps up_bps over [UPSTART, UPSTART + WINDOW]
set scheme [lindex $argv 0]
set upstart [lindex $argv 1]
set win [lindex $argv 2]
set seed [lindex $argv 3]
ns-random $seed
set ns [new Simulator]
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100
Agent/TCP set windowInit_ 1
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCPSink set packetSize_ 18
Agent/TCPSink/DelAck set interval_ 0.1
set r1 [$ns node]; set r2 [$ns node]
set s1 [$ns node]; set c1 [$ns node]; set c2 [$ns node]; set s2 [$ns node]
$ns simplex-link $r1 $r2 10Mb 5ms DropTail
$ns simplex-link $r2 $r1 28.8Kb 85ms DropTail
$ns queue-limit $r1 $r2 20
$ns queue-limit $r2 $r1 20
foreach {h r} [list $s1 $r1 $s2 $r1 $c1 $r2 $c2 $r2] { $ns duplex-link $h $r 10Mb 1ms DropTail }
if {$scheme != "tcp"} {
  set q [[$ns link $r2 $r1] queue]
  set spq [new PacketQueue/Semantic]
  $spq set filteracks_ true
  $spq set replace_head_ false
  $spq set acksfirst_ [expr {$scheme == "af-afirst" ? "true" : "false"}]
  $q packetqueue-attach $spq
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
set f1 [new Application/FTP]; $f1 attach-agent $down
set f2 [new Application/FTP]; $f2 attach-agent $up
$ns at 0.0 "$f1 start"
$ns at $upstart "$f2 start"
proc mark {} { global down up a0 b0; set a0 [$down set ack_]; set b0 [$up set ack_] }
proc done {} {
  global down up a0 b0 win
  set a1 [$down set ack_]; set b1 [$up set ack_]
  if {$b0 < 0} { set b0 -1 }
  puts [format "%.1f %.1f" [expr {($a1 - $a0) * 8000.0 / $win}] [expr {($b1 - $b0) * 8000.0 / $win}]]
  exit 0
}
$ns at $upstart "mark"
$ns at [expr {$upstart + $win}] "done"
$ns run
