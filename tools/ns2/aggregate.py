#!/usr/bin/env python3
"""Collect raw ns-2 outputs (written by regen.sh into a work directory) into the
checked-in statistical goldens.

usage:
  aggregate.py red    WORKDIR OUT.json     # WORKDIR/red_<seed>.json, one per seed
  aggregate.py pareto WORKDIR OUT.json     # WORKDIR/pareto_<seed>.json
  aggregate.py spand  WORKDIR OUT.json     # WORKDIR/spand_<variant>_<n>_<seed>.out
  aggregate.py bench  WORKDIR OUT.json     # WORKDIR/bench_<wl>.{out,err,time}
"""
import glob
import json
import math
import os
import re
import statistics
import sys

PACKET_SIZE = 1000  # packetSize_ of every TCP sender in these scenarios


def mean(xs):
    return sum(xs) / len(xs)


def rel_se(xs):
    """Relative standard error of the mean of xs (sample sd / sqrt(n) / mean)."""
    m = mean(xs)
    return statistics.stdev(xs) / math.sqrt(len(xs)) / m if m else 0.0


def tolerance(xs, floor=0.02):
    """Tolerance on the difference of two independent n-seed means with ns-2's spread:
    max(floor, 3 * sqrt(2) * relative SE)."""
    return round(max(floor, 3.0 * math.sqrt(2.0) * rel_se(xs)), 4)


def seeds_of(work, prefix):
    out = []
    for p in glob.glob(os.path.join(work, prefix + "_*.json")):
        out.append(int(re.search(r"_(\d+)\.json$", p).group(1)))
    return sorted(out)


def red(work, out):
    per_seed = []
    for s in seeds_of(work, "red"):
        with open(os.path.join(work, f"red_{s}.json")) as f:
            r = json.load(f)
        flows = []
        for fl in r["flows"]:
            acked = max(fl["ack"], 0)  # syn_ true: seqno 0 is the SYN, data are 1..ack_
            flows.append({"start_s": fl["start_s"], "ack": fl["ack"], "acked_pkts": acked,
                          "bytes_acked": acked * PACKET_SIZE, "sink_bytes": fl["sink_bytes"],
                          "ndatapack": fl["ndatapack"], "nrexmitpack": fl["nrexmitpack"]})
        per_seed.append({
            "seed": s,
            "start_s": [fl["start_s"] for fl in r["flows"]],
            "flows": flows,
            "drops": r["drops"],
            "bottleneck_arrivals": r["arrivals"]["r1->r2"],
            "total_acked_pkts": sum(f["acked_pkts"] for f in flows),
            "total_bytes_acked": sum(f["bytes_acked"] for f in flows),
            "total_retransmits": sum(f["nrexmitpack"] for f in flows),
        })
    keys = ["total_acked_pkts", "total_bytes_acked", "total_retransmits"]
    means = {k: mean([p[k] for p in per_seed]) for k in keys}
    means["drops_r1->r2"] = mean([p["drops"]["r1->r2"] for p in per_seed])
    means["drops_r2->r1"] = mean([p["drops"]["r2->r1"] for p in per_seed])
    means["per_flow_bytes_acked"] = [mean([p["flows"][i]["bytes_acked"] for p in per_seed])
                                     for i in range(len(per_seed[0]["flows"]))]
    rse = {"total_acked_pkts": rel_se([p["total_acked_pkts"] for p in per_seed]),
           "drops_r1->r2": rel_se([p["drops"]["r1->r2"] for p in per_seed]),
           "total_retransmits": rel_se([p["total_retransmits"] for p in per_seed])}
    doc = {
        "description": "4 NewReno FTP flows (window_ 100, TCPSink) over the dumbbell with a "
                       "Queue/RED bottleneck (ns-2.35 defaults, limit_ 40 = 20000 bytes in "
                       "queue_in_bytes_ mode), flow start times uniform in [0,2) s from the "
                       "seeded RNG (rounded to 1 us), 200 s per seed. See tools/ns2/red.tcl.",
        "command": "ns tools/ns2/red.tcl SEED 200",
        "config": "red.config.json (seed and per-flow start_s are substituted per seed)",
        "definitions": {
            "acked_pkts": "data packets cumulatively acked = ack_ (the SYN is seqno 0)",
            "bytes_acked": "acked_pkts * packetSize_ (1000)",
            "sink_bytes": "TCPSink bytes_: in-order bytes received, wire sizes (1040 per data "
                          "packet, 40 for the SYN)",
            "drops": "QueueMonitor pdrops_ of the link (early + forced)",
        },
        "seeds": [p["seed"] for p in per_seed],
        "per_seed": per_seed,
        "means": means,
        "relative_standard_error_of_mean": rse,
        "compare": {"total_acked_pkts": 0.02, "drops_r1->r2": 0.02},
        "compare_note": "Only means over the seeds are compared (our random streams differ "
                        "from ns-2's); relative tolerance per quantity. Retransmits are "
                        "recorded but not compared (too noisy for 2% over 10 seeds).",
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def pareto(work, out):
    per_seed = []
    for s in seeds_of(work, "pareto"):
        with open(os.path.join(work, f"pareto_{s}.json")) as f:
            r = json.load(f)
        acked = max(r["tcp"]["ack"], 0)
        per_seed.append({
            "seed": s,
            "tcp": dict(r["tcp"], acked_pkts=acked, bytes_acked=acked * PACKET_SIZE),
            "drops": r["drops"],
            "udp_sent": r["udp_sent"],
            "udp_received": r["udp_received"],
            "udp_sent_total": r["udp_sent_total"],
            "udp_received_total": r["udp_received_total"],
        })
    series = {
        "tcp_acked_pkts": [p["tcp"]["acked_pkts"] for p in per_seed],
        "tcp_bytes_acked": [p["tcp"]["bytes_acked"] for p in per_seed],
        "tcp_retransmits": [p["tcp"]["nrexmitpack"] for p in per_seed],
        "drops_r1->r2": [p["drops"]["r1->r2"] for p in per_seed],
        "udp_sent_total": [p["udp_sent_total"] for p in per_seed],
        "udp_received_total": [p["udp_received_total"] for p in per_seed],
    }
    means = {k: mean(v) for k, v in series.items()}
    rse = {k: rel_se(v) for k, v in series.items()}
    doc = {
        "description": "1 NewReno FTP flow (window_ 100, TCPSink, start 0.1 s) plus 10 "
                       "Application/Traffic/Pareto sources (rate_ 64Kb, packetSize_ 210, "
                       "burst_time_ 0.5 s, idle_time_ 0.5 s, shape_ 1.5; Agent/UDP -> "
                       "Agent/Null, source j starts at 0.05*j s) over the dumbbell "
                       "(1.6Mb/50ms DropTail 10), 200 s per seed. See tools/ns2/pareto.tcl.",
        "command": "ns tools/ns2/pareto.tcl SEED 200",
        "config": "pareto.config.json (seed substituted per seed)",
        "definitions": {
            "tcp_acked_pkts": "ack_ of the TCP sender (data packets 1..ack_; seqno 0 is the SYN)",
            "udp_sent_total": "packets entering the queues of links u<j>->r1 (QueueMonitor "
                              "parrivals_), summed over the 10 sources",
            "udp_received_total": "packets handed to the Null agents ('r' events of r2->e<j>)",
            "drops": "QueueMonitor pdrops_",
        },
        "seeds": [p["seed"] for p in per_seed],
        "per_seed": per_seed,
        "means": means,
        "relative_standard_error_of_mean": rse,
        "compare": {
            "tcp_acked_pkts": 0.02,
            "udp_sent_total": tolerance(series["udp_sent_total"]),
            "udp_received_total": tolerance(series["udp_received_total"]),
            "drops_r1->r2": tolerance(series["drops_r1->r2"]),
        },
        "compare_note": "Only means over the seeds are compared, with these relative "
                        "tolerances. TCP acked packets: 2%. The Pareto ON/OFF sources (shape "
                        "1.5, infinite variance) make the UDP counts and the drop count too "
                        "noisy for 2% over 10 seeds, so their tolerance is max(2%, 3*sqrt(2)*"
                        "relative standard error of ns-2's 10-seed mean).",
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def spand(work, out):
    runs = {}
    for p in sorted(glob.glob(os.path.join(work, "spand_*.out"))):
        m = re.search(r"spand_(.+)_(\d+)_(\d+)\.out$", p)
        variant, n, seed = m.group(1), int(m.group(2)), int(m.group(3))
        comps = []
        with open(p) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4:
                    comps.append(float(parts[3]))
        runs.setdefault(variant, {}).setdefault(n, {})[seed] = comps
    results = {}
    for variant in sorted(runs):
        results[variant] = {}
        for n in sorted(runs[variant]):
            seeds = sorted(runs[variant][n])
            per_seed = [{"seed": s, "n_transfers": len(runs[variant][n][s]),
                         "mean_completion_s": round(mean(runs[variant][n][s]), 9)}
                        for s in seeds]
            results[variant][str(n)] = {
                "per_seed": per_seed,
                "mean_completion_s": round(mean([p["mean_completion_s"] for p in per_seed]), 9),
                "relative_standard_error_of_mean": round(
                    rel_se([p["mean_completion_s"] for p in per_seed]), 5) if len(per_seed) > 1 else None,
                "mean_n_transfers": mean([p["n_transfers"] for p in per_seed]),
                "expected_n_transfers": 40 * n,
            }
    doc = {
        "description": "TCP/SPAND baseline TCPs (shared script spand_baseline.tcl, copied to "
                       "tools/ns2/) on the single-bottleneck topology: 5 Telnet background "
                       "sessions, N connections doing 40 rounds of 30 KB transfers.",
        "command": "ns tools/ns2/spand_baseline.tcl VARIANT N 30 10 SEED   (BW 1.6Mb, DELAY "
                   "50ms, ROUNDS 40 by default)",
        "config": "spand_baseline_<variant>_<N>.config.json (seed substituted per seed)",
        "definitions": {
            "mean_completion_s": "mean over the run's completed transfers of the script's "
                                 "completion time ([ns now] - start at the first 1 ms poll "
                                 "that sees ack_ >= target - 1)",
            "n_transfers": "number of completed transfers printed by the script",
        },
        "polling_note": "ns-2 completion times are quantised up to the 1 ms polling grid "
                        "started at the transfer's start: the test rounds our exact "
                        "completion times up to the next whole ms before averaging.",
        "seeds": [1, 2, 3, 4, 5],
        "results": results,
        "compare": {"mean_completion_s": 0.03, "n_transfers": "equal per seed"},
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def bench(work, out):
    doc = {"description": "ns-2.35 outcome and wall time of tools/ns2/bench.tcl WORKLOAD "
                          "(single run on the machine that ran regen.sh; ns2_cpu_s = user + "
                          "sys time, ns2_wall_s = elapsed).", "workloads": {}}
    for p in sorted(glob.glob(os.path.join(work, "bench_*.out"))):
        wl = re.search(r"bench_(\w)\.out$", p).group(1)
        with open(p) as f:
            delivered = int(f.read().split()[1])
        with open(os.path.join(work, f"bench_{wl}.time")) as f:
            wall, user, sys_ = (float(x) for x in f.read().split()[-3:])
        with open(os.path.join(work, f"bench_{wl}.err")) as f:
            info = [l.strip() for l in f if l.strip()]
        doc["workloads"][wl] = {"command": f"ns tools/ns2/bench.tcl {wl}",
                                "config": f"bench_{wl}.config.json",
                                "delivered_pkts": delivered, "ns2_wall_s": round(wall, 2),
                                "ns2_cpu_s": round(user + sys_, 2),
                                "ns2_stderr": info}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    mode, work, out = sys.argv[1:4]
    {"red": red, "pareto": pareto, "spand": spand, "bench": bench}[mode](work, out)
