# ns-2.35 oracle for the Fast Start reproduction's `tcp` rows (and a sanity check of the
# cached-window logic with maxburst_ 0): one Web pair, no cross traffic, the page model of
# scenarios/faststart/common.md.
#
# usage: ns faststart_page.tcl CONFIG BW DELAY GAP BOOT
#   CONFIG  tcp  (Agent/TCP/Newreno, slow_start_restart_ true)
#           fs0  (Agent/TCP/Newreno/FS, maxburst_ 0, fast_loss_recov_ / fast_reset_timer_
#                 true, count_bytes_acked_ true, slow_start_restart_ false: the author's
#                 scripts' settings)
#   BW DELAY  the shared link (e.g. 1.5Mb 200ms); access links 10x BW, 0 delay, limit 1000
#   GAP     request gap (s): the images start GAP after the HTML's last ack
#   BOOT    boot_time_ of the sender (s, in [0, 0.01))
# Both downloads: HTML (1 packet), then images (100 then 40 packets); the second page
# starts 20 s after the first one's last ack. Prints "second_page_s X" (images' last ack
# - HTML start + GAP) and the retransmission / timeout counters.
# Common: packetSize_ 1000, window_ 100, windowInit_ 1, syn_ false, delay_growth_ false,
# singledup_ 0, the rest ns-2.35 defaults (tcpTick_ 0.01, minrto_ 0.2); Agent/TCPSink.

set config [lindex $argv 0]
set bw [lindex $argv 1]
set dly [lindex $argv 2]
set gap [lindex $argv 3]
set boot [lindex $argv 4]

set ns [new Simulator]
set s [$ns node]; set r1 [$ns node]; set r2 [$ns node]; set c [$ns node]
set abw [expr {10 * [bw_parse $bw]}]
$ns duplex-link $s $r1 $abw 0ms DropTail
$ns duplex-link $r1 $r2 $bw $dly DropTail
$ns duplex-link $r2 $c $abw 0ms DropTail
$ns queue-limit $s $r1 1000; $ns queue-limit $r1 $s 1000
$ns queue-limit $r2 $c 1000; $ns queue-limit $c $r2 1000
$ns queue-limit $r1 $r2 20; $ns queue-limit $r2 $r1 20

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 100
Agent/TCP set windowInit_ 1
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set singledup_ 0
switch -- $config {
    tcp { set tcp [new Agent/TCP/Newreno]; $tcp set slow_start_restart_ true }
    fs0 {
        set tcp [new Agent/TCP/Newreno/FS]
        $tcp set slow_start_restart_ false
        $tcp set maxburst_ 0
        $tcp set fast_loss_recov_ true
        $tcp set fast_reset_timer_ true
        $tcp set count_bytes_acked_ true
    }
    default { puts stderr "CONFIG: tcp or fs0"; exit 1 }
}
$tcp set boot_time_ $boot
set sink [new Agent/TCPSink]
$ns attach-agent $s $tcp
$ns attach-agent $c $sink
$ns connect $tcp $sink

# part 0: HTML of page 1, 1: images of page 1, 2: HTML of page 2, 3: images of page 2
set part 0
set t_html2 0
Agent/TCP instproc done {} {
    global ns part gap t_html2 tcp
    set now [$ns now]
    switch -- $part {
        0 { set part 1; $ns at [expr {$now + $gap}] "$tcp advanceby 100" }
        1 { set part 2; set t_html2 [expr {$now + 20.0}]; $ns at $t_html2 "$tcp advanceby 1" }
        2 { set part 3; $ns at [expr {$now + $gap}] "$tcp advanceby 40" }
        3 {
            puts [format "second_page_s %.9f" [expr {$now - $t_html2 + $gap}]]
            puts "nrexmitpack [$tcp set nrexmitpack_] nrexmit [$tcp set nrexmit_]"
            exit 0
        }
    }
}
$ns at 1.0 "$tcp advanceby 1"
$ns at 5000.0 "puts unfinished; exit 1"
$ns run
