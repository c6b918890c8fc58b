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

source [file join [file dirname [info script]] common.tcl]
set tcpcls [tcp_class $variant {tahoe reno newreno}]
set sinkcls [sink_class $sinkkind]

set duration 60.0
dumbbell_core DropTail 10 $prefix
# Flow i's FTP starts at 0.1 + 0.37*i s; every Agent/TCP knob at the ns-2.35 default
# except window_ 100.
dumbbell_flows $nflows $tcpcls {window_ 100} $sinkcls 0.1
monitor_dumbbell $nflows

proc finish {} {
    global nflows prefix variant sinkkind duration
    write_summary $prefix dumbbell_${variant}_${nflows}_${sinkkind} $duration [list \
        notes {"ack times in the .acks.csv are [ns now] printed with %.9f; cwnd is ns-2's TracedDouble text (%g, 6 significant digits); ssthresh is an integer; links: QueueMonitor counters (arrivals include drops, departures = dequeued for transmission); flows: sender ack_ ndatapack_ ... at the end, sink_bytes = TCPSink bytes_, sink_pkts_received = data packets (SYN included, duplicates included) delivered to the sink"} \
    ] $nflows {}
    exit 0
}
# boot_time_: see replay_boot_times in common.tcl.
replay_boot_times
$ns at $duration "finish"
$ns run
