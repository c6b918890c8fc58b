"""Reading a written ``SimConfig`` that has replicas (``SimConfig.replicas``: one host
pair, its access links, connection and FTP app, copied ``count`` times by the core):
the written-out lists the core builds from it, and every flow's name. Tools that read a
configuration's flows or links (traces, packet captures, link choice) use these; the
expansion that writes replicas is in :mod:`shortflow.expand`."""

from __future__ import annotations

from typing import Any

__all__ = ["expand_replicas", "flow_names", "round15"]


def round15(x: float) -> float:
    """As the expansion writes a time: 15 significant digits (what the core rounds to)."""
    return float(f"{x:.15g}")


def expand_replicas(cfg: dict[str, Any]) -> dict[str, Any]:
    """``cfg`` with its replicas (``SimConfig.replicas``) written out as the nodes, links,
    flows and apps they stand for (what the core builds), for tools that read those
    lists (packet captures, link choice). A configuration without replicas is returned as is."""
    reps = cfg.get("replicas")
    if not reps:
        return cfg
    out = {k: (list(v) if k in ("nodes", "links", "flows", "apps") else v) for k, v in cfg.items() if k != "replicas"}
    for k in ("flows", "apps"):
        out.setdefault(k, [])
    for r in reps:
        name, acc = r["name"], r["access"]
        dacc = r.get("dst_access", acc)
        app = r.get("app")
        for i in range(1, r["count"] + 1):
            s, d = f"{name}.s{i}", f"{name}.d{i}"
            out["nodes"] += [s, d]
            out["links"] += [{"src": s, "dst": r["src"], **acc}, {"src": r["dst"], "dst": d, **dacc}]
            flow: dict[str, Any] = {"name": f"{name}.{i}", "src": s, "dst": d}
            for key in ("tcp", "sink", "startup"):
                if key in r:
                    flow[key] = dict(r[key])
            out["flows"].append(flow)
            if app is not None:
                a = {k: v for k, v in app.items() if k != "stagger_s"}
                a["flow"] = flow["name"]
                a["start_s"] = round15(app.get("start_s", 0.0) + (i - 1) * app.get("stagger_s", 0.0))
                out["apps"].append(a)
    return out


def flow_names(cfg: dict[str, Any]) -> list[str]:
    """Every flow's name in configuration order: the explicit flows, then each replica's copies."""
    names = [f["name"] for f in cfg.get("flows", [])]
    for r in cfg.get("replicas", []):
        names += [f"{r['name']}.{i}" for i in range(1, r["count"] + 1)]
    return names
