"""P4 Figs. 4-6: SURGE Web users over a parking lot (``scenarios/vienna/fig5_n*.toml``).

Every aggregate runs the TCP under test (TCP-V1, TCP-V2, TCP-R1, TCP-R2) with the same
number of users; the load sweep sets the users of every aggregate at once. Per run we keep
the evaluated aggregate's objects (``web.*``) requested after the warm-up and the
congested ports' drop counts. Metrics (spec B.7.3):

* **mean slowdown** = mean over objects of response time / object size (s per KB,
  P4's definition); Fig. 5 normalises it by TCP-V1's at the same load;
* **drop probability** (Fig. 6 left) = drops / arrivals at the congested output ports
  (both directions of every core hop);
* **response-time quantiles** (Fig. 6 right), normalised by TCP-V1's.

Objects not finished when the run stops are counted (``unfinished``) but have no
response time; they are few (the run's last seconds) and left out of the means.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import polars as pl

#: The TCP variants (scheme names of the scenario files), V1 first: it is the reference.
VARIANTS = ("v1", "v2", "r1", "r2")
LABELS = {"v1": "TCP-V1", "v2": "TCP-V2", "r1": "TCP-R1", "r2": "TCP-R2",
          "v1_doubling": "TCP-V1 (doubling)", "v2_doubling": "TCP-V2 (doubling)"}
#: Ablation (full mode, n = 1): Vienna with the doubling evaluation schedule (spec B.11
#: item 3 asks for both readings of Eq. 4 when they differ). Not part of the claims.
ABLATION = ("v1_doubling", "v2_doubling")
#: Quantiles of Fig. 6 right.
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999)

#: mode -> hop count -> (users per aggregate, simulated seconds, warm-up seconds, seeds),
#: and the Fig. 6 right point (hops, users). With n hops every middle hop carries two
#: aggregates in the data direction (the evaluated one and a forward cross one), with one
#: hop (n = 1) only one: the n = 9 sweep has half the users, so the busiest hops span the
#: same utilisations (about 25 % to 100 %; see scenarios/vienna/common.md). P4's "300 users"
#: of Fig. 6 right are 3/4 of its top load (400): ours are 3/4 of the n = 9 top (37 of 50).
WEB_MODES: dict[str, dict[str, Any]] = {
    "full": {"hops": {1: ((25, 50, 75, 100), 2000.0, 100.0, (1, 2)),
                      9: ((12, 25, 37, 50), 600.0, 60.0, (1,))},
             "fig6": (9, 37), "ablation_hops": (1,)},
    "quick": {"hops": {1: ((25, 75), 200.0, 30.0, (1,)),
                       9: ((25,), 150.0, 30.0, (1,))},
              "fig6": (9, 25), "ablation_hops": ()},
}


def scenario(n: int, users: int, duration_s: float):
    """The parking lot with ``n`` hops, ``users`` users in every aggregate."""
    from ...scenario import Scenario, load
    from ..paths import find_scenario_dir

    name = f"fig5_n{n}.toml"
    base = load(find_scenario_dir("vienna", name, "SHORTFLOW_VIENNA_SCENARIOS") / name)
    raw = copy.deepcopy(base.raw)
    raw["duration"] = f"{duration_s:g}s"
    for g in raw["flows"]:
        g["count"] = users
    return Scenario.from_dict(raw, source=base.source)


def core_ports(links: pl.DataFrame) -> pl.DataFrame:
    """The core hops' output ports (router -> router links)."""
    return links.filter(pl.col("link").str.contains(r"^r\d+->r\d+$"))


def run_point(n: int, users: int, variant: str, seed: int, duration_s: float, warmup_s: float
              ) -> tuple[dict[str, Any], pl.DataFrame]:
    """One run: its summary row and the evaluated aggregate's response times."""
    from ...units import parse_rate

    sc = scenario(n, users, duration_s)
    rate_bps = parse_rate(sc.raw["topology"]["bottleneck"]["rate"])
    r = sc.simulate(seed=seed, point={"scheme": variant})
    o = r.objects.filter(pl.col("pair").str.starts_with("web.") & (pl.col("request_s") >= warmup_s))
    done = o.filter(pl.col("end_s").is_not_null())
    done = done.with_columns(pl.col("time_s").alias("response_time_s"))
    done = done.with_columns((pl.col("response_time_s") / (pl.col("bytes").cast(pl.Float64) / 1000.0)).alias("slowdown"))
    ports = core_ports(r.links)
    arrivals, drops = int(ports["arrivals"].sum()), int(ports["drops"].sum())
    # Utilisation of the evaluated data's first hop (n+1 -> n), from its departed bytes.
    first = r.links.filter(pl.col("link") == f"r{n + 1}->r{n}")
    util = float(first["bytes_departed"].sum()) * 8 / rate_bps / duration_s if first.height else float("nan")
    row = {
        "hops": n, "users": users, "variant": variant, "seed": seed,
        "objects": done.height, "unfinished": o.height - done.height,
        "mean_response_s": float(done["response_time_s"].mean()) if done.height else float("nan"),
        "mean_slowdown_s_per_kb": float(done["slowdown"].mean()) if done.height else float("nan"),
        "drop_prob": drops / arrivals if arrivals else float("nan"),
        "util_first_hop": util,
        "wall_s": float(r.stats.get("wall_s", float("nan"))),
    }
    return row, done.select("response_time_s", "bytes", "slowdown").with_columns(
        pl.lit(n).alias("hops"), pl.lit(users).alias("users"), pl.lit(variant).alias("variant"), pl.lit(seed).alias("seed"))


def web_tables(mode: str, log: Callable[[str], None]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(runs, response times) of every point of ``mode``."""
    rows, times = [], []
    for n, (users, duration_s, warmup_s, seeds) in WEB_MODES[mode]["hops"].items():
        variants = VARIANTS + (ABLATION if n in WEB_MODES[mode]["ablation_hops"] else ())
        for u in users:
            for v in variants:
                for seed in seeds:
                    row, t = run_point(n, u, v, seed, duration_s, warmup_s)
                    rows.append(row)
                    times.append(t)
                last = [r for r in rows if (r["hops"], r["users"], r["variant"]) == (n, u, v)]
                log(f"web n={n} users={u} {v}: {len(seeds)} runs of {duration_s:g} s, mean slowdown "
                    f"{sum(r['mean_slowdown_s_per_kb'] for r in last) / len(last):.4g} s/KB, drop "
                    f"{sum(r['drop_prob'] for r in last) / len(last):.4f}")
    return pl.DataFrame(rows), pl.concat(times, how="vertical_relaxed")


def fig5_table(runs: pl.DataFrame, times: pl.DataFrame) -> pl.DataFrame:
    """Mean slowdown per (hops, users, variant) over all seeds' objects, and normalised by V1's."""
    m = (times.group_by("hops", "users", "variant")
         .agg(pl.col("slowdown").mean().alias("mean_slowdown"), pl.len().alias("objects"),
              pl.col("response_time_s").mean().alias("mean_response_s")))
    ref = m.filter(pl.col("variant") == "v1").select("hops", "users", pl.col("mean_slowdown").alias("v1"))
    drops = runs.group_by("hops", "users", "variant").agg(pl.col("drop_prob").mean(), pl.col("util_first_hop").mean(),
                                                         pl.col("unfinished").sum())
    return (m.join(ref, on=["hops", "users"]).join(drops, on=["hops", "users", "variant"])
            .with_columns((pl.col("mean_slowdown") / pl.col("v1")).alias("normalised_slowdown"))
            .drop("v1").sort("hops", "users", "variant"))


def quantile_table(times: pl.DataFrame, n: int, users: int) -> pl.DataFrame:
    """Response-time quantiles per variant at (n, users), and normalised by V1's."""
    q = times.filter((pl.col("hops") == n) & (pl.col("users") == users))
    rows = []
    for v in VARIANTS:
        t = q.filter(pl.col("variant") == v)["response_time_s"]
        for p in QUANTILES:
            rows.append({"variant": v, "q": p, "response_s": float(t.quantile(p, "linear")) if t.len() else float("nan")})
    df = pl.DataFrame(rows)
    ref = df.filter(pl.col("variant") == "v1").select("q", pl.col("response_s").alias("v1"))
    return df.join(ref, on="q").with_columns((pl.col("response_s") / pl.col("v1")).alias("normalised")).drop("v1")


def _fmt(xs: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in xs)


def fig5_claims(t: pl.DataFrame, claim: Callable[..., Any]) -> list[Any]:
    out = []
    for n in sorted(set(t["hops"].to_list())):
        q = t.filter(pl.col("hops") == n).sort("users")
        users = sorted(set(q["users"].to_list()))

        def norm(v: str) -> list[float]:
            return q.filter(pl.col("variant") == v).sort("users")["normalised_slowdown"].to_list()
        v2, r1, r2 = norm("v2"), norm("r1"), norm("r2")
        out.append(claim(
            id=f"fig5-v2-like-v1-n{n}", figure="Fig. 5",
            paper="TCP-V2 performs like TCP-V1: Vienna needs no a-priori size information",
            measured=f"n = {n}, users {users}: V2 mean slowdown / V1's = {_fmt(v2)}",
            rule="|V2/V1 - 1| <= 0.1 at every load", passed=all(abs(x - 1) <= 0.1 for x in v2), source="ours"))
        both = r1 + r2
        out.append(claim(
            id=f"fig5-gain-n{n}", figure="Fig. 5",
            paper="Vienna improves the mean slowdown by a factor 1.3 up to 1.8 over NewReno (depending on load)",
            measured=f"n = {n}, users {users}: mean slowdown / V1's: R1 {_fmt(r1)}; R2 {_fmt(r2)}",
            rule="every R1 and R2 value in [1.3, 1.8] (spec B.8)",
            passed=bool(both) and all(1.3 <= x <= 1.8 for x in both), source="paper",
            note=("Vienna ahead of both baselines at every load" if both and all(x > 1 for x in both)
                  else "NewReno not behind Vienna at every load")))
    return out


def fig6_drop_claims(t: pl.DataFrame, claim: Callable[..., Any]) -> list[Any]:
    q = t.filter(pl.col("hops") == 1).sort("users")
    if q.is_empty():
        return []
    users = sorted(set(q["users"].to_list()))

    def p(v: str) -> list[float]:
        return q.filter(pl.col("variant") == v).sort("users")["drop_prob"].to_list()
    v1, v2, r1, r2 = p("v1"), p("v2"), p("r1"), p("r2")
    slightly = all(r <= a <= 1.5 * r and r <= b <= 1.5 * r for a, b, r in zip(v1, v2, r2))
    lower = all(x <= 0.8 * min(a, b, c) for x, a, b, c in zip(r1, v1, v2, r2))
    meas = (f"n = 1, users {users}: drop probability V1 {_fmt([100 * x for x in v1])} %, V2 {_fmt([100 * x for x in v2])} %, "
            f"R1 {_fmt([100 * x for x in r1])} %, R2 {_fmt([100 * x for x in r2])} %")
    return [
        claim(id="fig6-drop-vienna-vs-r2", figure="Fig. 6 left",
              paper="Vienna's packet drop probability is slightly higher than TCP-R2's",
              measured=meas, rule="at every load R2 <= V1, V2 <= 1.5 x R2", passed=slightly, source="ours"),
        claim(id="fig6-drop-r1-lowest", figure="Fig. 6 left",
              paper="TCP-R1's drop probability is significantly lower than all the others'",
              measured=meas, rule="at every load R1 <= 0.8 x min(V1, V2, R2)", passed=lower, source="ours"),
    ]


def fig6_quantile_claims(qt: pl.DataFrame, n: int, users: int, claim: Callable[..., Any]) -> list[Any]:
    if qt.is_empty() or qt["response_s"].is_nan().all():
        return []

    def at(v: str, cond) -> list[float]:
        return qt.filter((pl.col("variant") == v) & cond).sort("q")["response_s"].to_list()
    low = pl.col("q") <= 0.95
    high = pl.col("q") > 0.95
    lows = {v: at(v, low) for v in VARIANTS}
    highs = {v: at(v, high) for v in VARIANTS}
    qs_low = qt.filter((pl.col("variant") == "v1") & low).sort("q")["q"].to_list()
    qs_high = qt.filter((pl.col("variant") == "v1") & high).sort("q")["q"].to_list()
    shorter = all(vv <= rr for v in ("v1", "v2") for r in ("r1", "r2") for vv, rr in zip(lows[v], lows[r]))
    newreno_better = all(rr < vv for v in ("v1", "v2") for r in ("r1", "r2") for vv, rr in zip(highs[v], highs[r]))
    ratio = lambda a, b: [x / y for x, y in zip(a, b)]  # noqa: E731
    v2v1 = ratio(at("v2", pl.lit(True)), at("v1", pl.lit(True)))
    where = f"n = {n}, {users} users"
    return [
        claim(id="fig6-quantiles-below-95", figure="Fig. 6 right",
              paper="both Vienna versions give shorter response times up to the 95 % quantile",
              measured=(f"{where}: quantiles {qs_low} / V1's: R1 {_fmt(ratio(lows['r1'], lows['v1']))}; "
                        f"R2 {_fmt(ratio(lows['r2'], lows['v1']))}; V2 {_fmt(ratio(lows['v2'], lows['v1']))}"),
              rule="V1 and V2 quantiles <= R1's and R2's at every q <= 0.95", passed=shorter, source="paper"),
        claim(id="fig6-quantiles-above-95", figure="Fig. 6 right",
              paper="above the 95 % quantile NewReno is better (short Vienna flows take more capacity)",
              measured=(f"{where}: quantiles {qs_high} / V1's: R1 {_fmt(ratio(highs['r1'], highs['v1']))}; "
                        f"R2 {_fmt(ratio(highs['r2'], highs['v1']))}"),
              rule="R1 and R2 quantiles < V1's and V2's at every q > 0.95", passed=newreno_better, source="paper"),
        claim(id="fig6-quantiles-v2-like-v1", figure="Fig. 6 right", paper="TCP-V1 and TCP-V2 behave alike",
              measured=f"{where}: V2 quantiles / V1's at {list(QUANTILES)}: {_fmt(v2v1)}",
              rule="|V2/V1 - 1| <= 0.1 at every quantile up to 0.99",
              passed=all(abs(x - 1) <= 0.1 for x, q in zip(v2v1, QUANTILES) if q <= 0.99), source="ours"),
    ]


def _variant_lines(ax, t: pl.DataFrame, hops: int, column: str, scale: float = 1.0) -> None:
    """One line per variant present at ``hops`` congested hops: ``column`` (times
    ``scale``) against the number of users; Vienna and NewReno solid with dots, the
    ablation variants dotted with crosses."""
    for v in VARIANTS + ABLATION:
        q = t.filter((pl.col("hops") == hops) & (pl.col("variant") == v)).sort("users")
        if q.is_empty():
            continue
        main = v in VARIANTS
        ax.plot(q["users"].to_list(), [scale * x for x in q[column].to_list()], marker="o" if main else "x",
                ls="-" if main else ":", label=LABELS[v])


def _finish_axes(ax, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


def plot_fig5(t: pl.DataFrame, path, note: str):
    from ...mpl import pyplot, save

    plt = pyplot()
    hops = sorted(set(t["hops"].to_list()))
    fig, axes = plt.subplots(1, len(hops), figsize=(5.5 * len(hops), 4.2), dpi=100, squeeze=False)
    for k, n in enumerate(hops):
        ax = axes[0][k]
        _variant_lines(ax, t, n, "normalised_slowdown")
        ax.axhspan(1.3, 1.8, color="grey", alpha=0.15, label="P4: 1.3-1.8")
        _finish_axes(ax, "Web users per aggregate", "mean slowdown / TCP-V1's", f"{n} congested hop{'s' if n > 1 else ''}")
    fig.suptitle("P4 Fig. 5: normalised mean slowdown" + (f" [{note}]" if note else ""), fontsize=10)
    return save(fig, path)


def plot_fig6(t: pl.DataFrame, qt: pl.DataFrame, n: int, users: int, path, note: str):
    from ...mpl import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), dpi=100)
    ax = axes[0]
    _variant_lines(ax, t, 1, "drop_prob", scale=100.0)
    _finish_axes(ax, "Web users per aggregate", "drop probability (%)", "left: n = 1")
    ax = axes[1]
    if not qt.is_empty():
        for v in VARIANTS:
            q = qt.filter(pl.col("variant") == v).sort("q")
            ax.plot([str(x) for x in q["q"].to_list()], q["normalised"].to_list(), marker="o", label=LABELS[v])
    ax.axhline(1.0, color="grey", lw=0.8)
    _finish_axes(ax, "quantile", "response time / TCP-V1's", f"right: n = {n}, {users} users")
    fig.suptitle("P4 Fig. 6" + (f" [{note}]" if note else ""), fontsize=10)
    return save(fig, path)
