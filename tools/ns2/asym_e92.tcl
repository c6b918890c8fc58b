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
source [file join [file dirname [info script]] common.tcl]
asym_defaults
asym_topology 28.8Kb DropTail
set sa [expr {$scheme != "tcp"}]
if {$sa} {
  asym_semantic_queue true [expr {$scheme == "af-afirst" ? "true" : "false"}]
}
asym_connections $sa
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
