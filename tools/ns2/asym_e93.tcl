# ns-2.35 oracle for thesis ch. 9 E9.3 (Table 9.2): rows ns-2.35 can run as described --
# tcp-nored (drop-tail), tcp (RED/ECN), tcp-afirst, af, af-afirst, noasym. Same topology,
# sizes and timing as scenarios/asym/e93_short_behind_bulk.toml (spec parameters): an
# upstream bulk flow from t = 0; a PRIME KB priming download at 10 s (the thesis's 100 KB
# by default); 40 KB 20 s after it completes.
# usage: ns asym_e93.tcl SCHEME SEED [PRIME]   prints: first_s second_s (completion times)
set scheme [lindex $argv 0]
set seed [lindex $argv 1]
set prime [expr {[llength $argv] > 2 ? [lindex $argv 2] : 100}]
ns-random $seed
set ns [new Simulator]
source [file join [file dirname [info script]] common.tcl]
asym_defaults
Agent/TCP set ecn_ 1
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ 3
Queue/RED set maxthresh_ 12
Queue/RED set q_weight_ 0.02
Queue/RED set setbit_ true
Queue/RED set use_mark_p_ false
set red [expr {$scheme != "tcp-nored"}]
asym_topology [expr {$scheme == "noasym" ? "10Mb" : "28.8Kb"}] [expr {$red ? "RED/Semantic" : "DropTail"}]
set af [string match "af*" $scheme]
if {$red} {
  asym_semantic_queue [expr {$af ? "true" : "false"}] [expr {[string match "*afirst" $scheme] ? "true" : "false"}]
}
asym_connections $af
set f2 [new Application/FTP]; $f2 attach-agent $up
$ns at 0.0 "$f2 start"
set sent 0
set done {}
set sizes [list $prime 40]
# Completion is polled every 1 ms (up to 1 ms late).
proc xfer {} {
  global down sent t0 ns sizes done
  set t0 [$ns now]
  set n [lindex $sizes [llength $done]]
  set sent [expr {$sent + $n}]
  $down advanceby $n
  check
}
proc check {} {
  global down sent t0 ns done
  if {[$down set ack_] >= $sent - 1} {
    lappend done [expr {[$ns now] - $t0}]
    if {[llength $done] == 2} { puts [format "%.4f %.4f" {*}$done]; exit 0 }
    $ns at [expr {[$ns now] + 20.0}] "xfer"
    return
  }
  if {[$ns now] > 2000} { puts "nan nan"; exit 0 }
  $ns at [expr {[$ns now] + 0.001}] "check"
}
$ns at 10.0 "xfer"
$ns run
