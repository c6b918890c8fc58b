# Deterministic ECN-through-RED dumbbell for shortflow's per-ack golden tests.
#
# usage: ns ecn_red.tcl VARIANT NFLOWS SINK START [OUTPREFIX]
#   VARIANT  reno | newreno   (Agent/TCP/Reno, Agent/TCP/Newreno), ecn_ 1
#   NFLOWS   number of FTP flows (1 and 2 are checked in)
#   SINK     plain | delack   (Agent/TCPSink, Agent/TCPSink/DelAck)
#   START    flow i's FTP starts at START + 0.37*i s (the checked-in START of each
#            scenario is one whose run has no rounding-decided ties, see below)
#   OUTPREFIX  where to write OUTPREFIX.acks.csv and OUTPREFIX.summary.json
#              (default: ecn_red_<variant>_<n>_<sink> in the current directory)
#   env ECN_RED_DEBUG=1: also write OUTPREFIX.debug.csv (every data and ack packet
#              entering and leaving the bottleneck, with ns-2's flag letters).
#
# The dumbbell of dumbbell.tcl (same nodes, links, 60 s; starts START + 0.37*i s),
# with ECN-capable senders (ecn_ 1, every other Agent/TCP knob at the ns-2.35 default
# except window_ 100) and the bottleneck r1 -> r2 a Queue/RED that *marks* (setbit_
# true) with a decision that does not depend on ns-2's global RNG:
#   packet mode (bytes_ false, queue_in_bytes_ false), queue-limit 20,
#   thresh_ = maxthresh_ = 5 packets, gentle_ false, q_weight_ 0.05,
#   use_mark_p_ true with mark_p_ 2.
# With thresh_ = maxthresh_, ns-2's reset() uses a slope of 1; below 5 packets of
# average nothing happens, at or above it calculate_p_new gives 1 (not gentle), so
# modify_p gives 1 (wait_: count >= 1 after the increment), and u <= 1 always holds:
# every arrival after the first one above threshold (the `old` rule) is marked if it is
# ECT (prob1 = 1 < mark_p_ = 2) and dropped if it is not (the SYN-less packet 0 of an
# ECN sender is not ECT). A full buffer (20 waiting) forces a tail drop as usual.
# Random::uniform is still drawn per decision (the run's RNG use matches ns-2's; the
# outcome does not depend on it). r2 -> r1 is the same RED queue (acks: not ECT,
# but their average stays far below 5).
#
# Ack times: as dumbbell.tcl (trace callback, [$ns now] with %.9f).

if {[llength $argv] < 4} {
    puts stderr "usage: ns ecn_red.tcl reno|newreno NFLOWS plain|delack START \[OUTPREFIX\]"
    exit 1
}
set variant [lindex $argv 0]
set nflows  [lindex $argv 1]
set sinkkind [lindex $argv 2]
set start0 [lindex $argv 3]
set prefix [expr {[llength $argv] > 4 ? [lindex $argv 4] : "ecn_red_${variant}_${nflows}_${sinkkind}"}]
set debug [expr {[info exists env(ECN_RED_DEBUG)] && $env(ECN_RED_DEBUG) eq "1"}]

source [file join [file dirname [info script]] common.tcl]
set tcpcls [tcp_class $variant {reno newreno}]
set sinkcls [sink_class $sinkkind]

Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 5
Queue/RED set q_weight_ 0.05
Queue/RED set gentle_ false
Queue/RED set setbit_ true
Queue/RED set use_mark_p_ true
Queue/RED set mark_p_ 2.0

set duration 60.0
dumbbell_core RED 20 $prefix
if {$debug} {
    set dbgf [open $prefix.debug.csv w]
    puts $dbgf "ev,time_s,link,type,flags,fid,seqno"
}

proc on_debug {lname line} {
    global ns dbgf
    set f [split [string trim $line] " "]
    puts $dbgf "[lindex $f 0],[format %.9f [$ns now]],$lname,[lindex $f 4],[lindex $f 6],[lindex $f 7],[lindex $f 10]"
}

dumbbell_flows $nflows $tcpcls {window_ 100 ecn_ 1} $sinkcls $start0

# Ties decided by floating-point rounding (see README "What we do not reproduce on
# purpose"): at the RED queue an arrival and a departure often fall on the same instant
# on paper (the ack clock spaces arrivals exactly like earlier departures). ns-2 fires
# them in scheduling order -- the departure's resume event, scheduled one transmission
# time earlier, first -- unless the last bit of its double clock puts the arrival
# first; then RED averages one more packet than in exact arithmetic, a choice our
# integer clock cannot make. We count such inversions (an arrival traced before the
# departure of another packet less than 1 ns later) and record them in the summary;
# the checked-in scenarios have none.
set flips 0
set lastq {- -1 -1.0}
proc on_bneck {ev line} {
    global ns lastq flips
    set f [split [string trim $line] " "]
    set now [$ns now]
    lassign $lastq pev puid pt
    if {$ev eq "-" && $pev eq "+" && $puid != [lindex $f 11] && $now - $pt < 1e-9} {
        incr flips
    }
    set lastq [list $ev [lindex $f 11] $now]
}
$ns trace-queue $r1 $r2 $nulltrace
foreach {tr ev} {enqT_ + deqT_ -} {
    set t [[$ns link $r1 $r2] set $tr]
    $t set callback_ 1
    $t proc handle {line} "on_bneck $ev \$line"
}

if {$debug} {
    # enqueue, dequeue and drop at the bottleneck, both ways
    foreach {a an b bn} [list $r1 r1 $r2 r2 $r2 r2 $r1 r1] {
        if {$an ne "r1"} { $ns trace-queue $a $b $nulltrace }
        set l [$ns link $a $b]
        foreach tr {enqT_ deqT_ drpT_ rcvT_} {
            set t [$l set $tr]
            $t set callback_ 1
            if {$an eq "r1" && $tr in {enqT_ deqT_}} {
                set ev [expr {$tr eq "enqT_" ? "+" : "-"}]
                $t proc handle {line} "on_bneck $ev \$line; on_debug $an->$bn \$line"
            } else {
                $t proc handle {line} "on_debug $an->$bn \$line"
            }
        }
    }
}

monitor_dumbbell $nflows

proc finish {} {
    global nflows prefix variant sinkkind duration debug dbgf flips
    if {$debug} { close $dbgf }
    write_summary $prefix ecn_red_${variant}_${nflows}_${sinkkind} $duration [list \
        rounding_ties_at_red $flips \
        notes {"as dumbbell summaries (see tools/ns2/README.md); necnresponses = the sender's necnresponses_ (window reductions for ECN echoes)"} \
    ] $nflows {necnresponses}
    exit 0
}
# boot_time_: see replay_boot_times in common.tcl.
replay_boot_times
$ns at $duration "finish"
$ns run
