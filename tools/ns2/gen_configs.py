#!/usr/bin/env python3
"""Write shortflow `SimConfig` JSON files describing exactly the experiments of the
Tcl scripts in this directory (tools/ns2/*.tcl).

usage: gen_configs.py OUTDIR [--red-stats FILE]

Only the knobs the Tcl scripts set are written; every other field is left to
shortflow's defaults, which equal ns-2.35's (crates/shortflow-core/src/config.rs).
Queues are always written explicitly. Node and link order follow the Tcl scripts'
creation order. Start times are written as the decimal literals ns-2 was given
(Tcl and Python compute the same IEEE doubles; see README.md).

Files:
  dumbbell_<variant>_<n>_<sink>.config.json   12 deterministic scenarios
  ecn_red_<variant>_<n>_<sink>.config.json    8 deterministic ECN-through-RED scenarios
  red.config.json                             RED case, seed 1; the test substitutes
                                              seed and per-seed start times from
                                              red_stats.json
  pareto.config.json                          Pareto case; the test substitutes seed
  spand_baseline_<variant>_<n>.config.json    TCP/SPAND baseline, seed 1; the test
                                              substitutes the seed
  bench_<a|b|c>.config.json                   benchmark workloads
"""
import json
import os
import sys


def link(src, dst, rate_bps, delay_s, queue):
    return {"src": src, "dst": dst, "rate_bps": float(rate_bps), "delay_s": float(delay_s),
            "duplex": True, "queue": queue}


def droptail(limit):
    return {"kind": "drop_tail", "limit_pkts": limit}


def dump(path, cfg, compact=False):
    with open(path, "w") as f:
        if compact:
            # one list element per line: small diffs, no pretty-printing bloat
            f.write("{\n")
            keys = list(cfg.keys())
            for k_i, k in enumerate(keys):
                v = cfg[k]
                sep = "," if k_i < len(keys) - 1 else ""
                if isinstance(v, list) and len(v) > 20 and not all(isinstance(e, str) for e in v):
                    f.write(f'  {json.dumps(k)}: [\n')
                    for i, e in enumerate(v):
                        f.write("    " + json.dumps(e, separators=(",", ":")) + ("," if i < len(v) - 1 else "") + "\n")
                    f.write(f"  ]{sep}\n")
                else:
                    f.write(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}{sep}\n")
            f.write("}\n")
        else:
            json.dump(cfg, f, indent=2)
            f.write("\n")


def dumbbell(variant, n, sink):
    nodes = ["r1", "r2"]
    links = [link("r1", "r2", 1.6e6, 0.05, droptail(10))]
    flows, apps = [], []
    for i in range(n):
        s, d = f"s{i}", f"d{i}"
        nodes += [s, d]
        links.append(link(s, "r1", 10e6, 0.001, droptail(50)))
        links.append(link("r2", d, 10e6, 0.001, droptail(50)))
        flows.append({"name": f"tcp{i}", "src": s, "dst": d,
                      "tcp": {"variant": variant, "window": 100},
                      "sink": {"delack": sink == "delack"}})
        # ns-2: [expr {0.1 + 0.37 * $i}], the same IEEE double as Python's
        apps.append({"kind": "ftp", "flow": f"tcp{i}", "start_s": 0.1 + 0.37 * i})
    return {"seed": 1, "duration_s": 60.0, "nodes": nodes, "links": links, "flows": flows,
            "apps": apps, "trace": {"acks": True}}


# ecn_red.tcl's bottleneck: a marking RED whose decision does not depend on ns-2's
# global RNG (thresh_ = maxthresh_, gentle_ false, mark_p_ > 1; see the script).
ECN_RED_QUEUE = {"kind": "red", "limit_pkts": 20, "thresh": 5.0, "maxthresh": 5.0,
                 "q_weight": 0.05, "gentle": False, "bytes": False, "queue_in_bytes": False,
                 "setbit": True, "use_mark_p": True, "mark_p": 2.0}
# (variant, flows, sink) -> START of flow 0 (flow i starts at START + 0.37 i s): for each
# scenario the first of 0.1, 0.15, ..., 2.0 whose ns-2 run has no arrival/departure
# tie at the RED queue decided by floating-point rounding (summary
# `rounding_ties_at_red` 0; see ecn_red.tcl). Keep in step with regen.sh.
ECN_RED = {("reno", 1, "plain"): 0.1, ("reno", 1, "delack"): 0.6,
           ("reno", 2, "plain"): 1.9, ("reno", 2, "delack"): 0.1,
           ("newreno", 1, "plain"): 0.1, ("newreno", 1, "delack"): 0.7,
           ("newreno", 2, "plain"): 1.05, ("newreno", 2, "delack"): 0.1}


def ecn_red(variant, n, sink, start):
    cfg = dumbbell(variant, n, sink)
    for i, app in enumerate(cfg["apps"]):
        # ns-2: [expr {$start0 + 0.37 * $i}], the same IEEE double as Python's
        app["start_s"] = start + 0.37 * i
    cfg["links"][0]["queue"] = dict(ECN_RED_QUEUE)
    for fl in cfg["flows"]:
        fl["tcp"]["ecn"] = True
    return cfg


def with_boot_times(cfg, summary_path):
    """ns-2 drew each agent's boot_time_ from its global RNG; the per-ack scripts replay
    the draws and record them in the summary."""
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            flows = json.load(f)["flows"]
        for fl, g in zip(cfg["flows"], flows):
            fl["tcp"]["boot_time_s"] = g["boot_time_s"]
    return cfg


def red(start_times):
    cfg = dumbbell("newreno", 4, "plain")
    cfg["links"][0]["queue"] = {"kind": "red", "limit_pkts": 40}
    cfg["duration_s"] = 200.0
    for i, a in enumerate(cfg["apps"]):
        a["start_s"] = start_times[i]
    return cfg


def pareto():
    nodes = ["r1", "r2", "s0", "d0"]
    links = [link("r1", "r2", 1.6e6, 0.05, droptail(10)),
             link("s0", "r1", 10e6, 0.001, droptail(50)),
             link("r2", "d0", 10e6, 0.001, droptail(50))]
    flows = [{"name": "tcp0", "src": "s0", "dst": "d0", "tcp": {"variant": "newreno", "window": 100}}]
    apps = [{"kind": "ftp", "flow": "tcp0", "start_s": 0.1}]
    for j in range(10):
        u, e = f"u{j}", f"e{j}"
        nodes += [u, e]
        links.append(link(u, "r1", 10e6, 0.001, droptail(50)))
        links.append(link("r2", e, 10e6, 0.001, droptail(50)))
        flows.append({"name": f"udp{j}", "src": u, "dst": e, "transport": "udp"})
        apps.append({"kind": "on_off", "flow": f"udp{j}", "dist": "pareto", "start_s": 0.05 * j,
                     "rate_bps": 64000.0, "packet_size": 210, "on_s": 0.5, "off_s": 0.5,
                     "shape": 1.5})
    return {"seed": 1, "duration_s": 200.0, "nodes": nodes, "links": links, "flows": flows,
            "apps": apps, "trace": {"acks": True}}


SPAND_VARIANTS = ["reno-ssr", "reno-nssr", "newreno-ssr", "newreno-nssr"]
SPAND_NS = [1, 6, 20]


def spand(variant, n, jitter=10.0, size_kb=30, rounds=40, idle=120.0):
    ssr = not variant.endswith("nssr")
    cls = "newreno" if variant.startswith("newreno") else "reno"

    def tcp(v):
        return {"variant": v, "packet_size": 1000, "window": 100, "tcp_tick_s": 0.05,
                "window_init": 1, "syn": False, "delay_growth": False, "singledup": 0,
                "slow_start_restart": ssr}

    nodes = ["r1", "r2"]
    links = [link("r1", "r2", 1.6e6, 0.05, droptail(10))]
    flows, apps = [], []
    k = 0
    # mkpair order of the script: 5 telnet pairs first, then the N transfer pairs
    for j in range(5):
        s, d = f"s{k}", f"d{k}"
        k += 1
        nodes += [s, d]
        links.append(link(s, "r1", 10e6, 0.001, droptail(50)))
        links.append(link("r2", d, 10e6, 0.001, droptail(50)))
        # Agent/TCP class-level knobs apply to the telnet agents too (Agent/TCP/Reno)
        flows.append({"name": f"telnet{j}", "src": s, "dst": d, "tcp": tcp("reno")})
        apps.append({"kind": "telnet", "flow": f"telnet{j}", "start_s": 0.0, "interval_s": 0.0})
    conns = []
    for i in range(n):
        s, d = f"s{k}", f"d{k}"
        k += 1
        nodes += [s, d]
        links.append(link(s, "r1", 10e6, 0.001, droptail(50)))
        links.append(link("r2", d, 10e6, 0.001, droptail(50)))
        flows.append({"name": f"conn{i}", "src": s, "dst": d, "tcp": tcp(cls)})
        conns.append(f"conn{i}")
    period = idle + 10.0
    apps.append({"kind": "rounds", "flows": conns, "rounds": rounds, "size_bytes": size_kb * 1000,
                 "jitter_s": jitter, "idle_s": idle, "first_center_s": 5.0 + jitter / 2.0,
                 "timing": {"kind": "fixed_period", "period_s": period}})
    # the script exits at rounds * period + 60; every transfer has finished long before
    # (stop_when_done only cuts the idle tail, telnet is not a finite application)
    return {"seed": 1, "duration_s": rounds * period + 60.0, "stop_when_done": True,
            "nodes": nodes, "links": links, "flows": flows, "apps": apps}


BENCH = {
    # workload: bottleneck rate, delay, DropTail limit, flows, duration, bytes (None = bulk)
    "a": (1.6e6, 0.05, 10, 10, 1000.0, None),
    "b": (45e6, 0.2, 100, 20, 200.0, None),
    "c": (45e6, 0.05, 500, 10000, 100.0, 30000),
}


def bench(wl):
    bw, dly, qlim, n, dur, nbytes = BENCH[wl]
    nodes = ["r1", "r2"]
    links = [link("r1", "r2", bw, dly, droptail(qlim))]
    flows, apps = [], []
    for i in range(n):
        s, d = f"s{i}", f"d{i}"
        nodes += [s, d]
        for a, b in [(s, "r1"), ("r2", d)]:
            lk = link(a, b, 10 * bw, 0.001, droptail(50))
            if wl == "c":
                # keep the 10 000-flow file small: duplex and DropTail(50) are defaults
                del lk["duplex"], lk["queue"]
            links.append(lk)
        flows.append({"name": f"tcp{i}", "src": s, "dst": d,
                      "tcp": {"variant": "newreno", "packet_size": 1000, "window": 1000}})
        app = {"kind": "ftp", "flow": f"tcp{i}", "start_s": i / n}  # Tcl: double($i) / N
        if nbytes is not None:
            app["bytes"] = nbytes
        apps.append(app)
    return {"seed": 1, "duration_s": dur, "nodes": nodes, "links": links, "flows": flows,
            "apps": apps}


def main():
    out = sys.argv[1]
    red_stats = None
    if "--red-stats" in sys.argv:
        red_stats = sys.argv[sys.argv.index("--red-stats") + 1]
    os.makedirs(out, exist_ok=True)
    for v in ["tahoe", "reno", "newreno"]:
        for n in [1, 4]:
            for s in ["plain", "delack"]:
                summ = os.path.join(out, f"dumbbell_{v}_{n}_{s}.summary.json")
                cfg = with_boot_times(dumbbell(v, n, s), summ)
                dump(os.path.join(out, f"dumbbell_{v}_{n}_{s}.config.json"), cfg)
    for (v, n, s), start in ECN_RED.items():
        name = f"ecn_red_{v}_{n}_{s}"
        cfg = with_boot_times(ecn_red(v, n, s, start), os.path.join(out, f"{name}.summary.json"))
        dump(os.path.join(out, f"{name}.config.json"), cfg)
    if red_stats:
        with open(red_stats) as f:
            st = json.load(f)
        first = st["per_seed"][0]
        cfg = red(first["start_s"])
        cfg["seed"] = first["seed"]
        dump(os.path.join(out, "red.config.json"), cfg)
    dump(os.path.join(out, "pareto.config.json"), pareto())
    for v in SPAND_VARIANTS:
        for n in SPAND_NS:
            dump(os.path.join(out, f"spand_baseline_{v}_{n}.config.json"), spand(v, n))
    for wl in BENCH:
        dump(os.path.join(out, f"bench_{wl}.config.json"), bench(wl), compact=(wl == "c"))


if __name__ == "__main__":
    main()
