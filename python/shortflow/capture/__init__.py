"""Analysis of real packet captures (``shortflow pcap analyze``): a streaming pcap/pcapng
reader and the per-connection and per-client TCP analysis of the thesis' ch. 4 trace
study. Writing captures of simulated runs is :mod:`shortflow.pcap`."""

#: Capture duplicates: at most this long after the frame they repeat. Defined here, not in
#: ``analyze``, so that the command line can show it as a default without loading numpy
#: and polars at start-up.
DUP_WINDOW_S = 0.010

# The rest loads on first use (PEP 562).
_LAZY = {
    "Analysis": "analyze",
    "analyze_capture": "analyze",
    "CaptureError": "reader",
    "ReadStats": "reader",
    "read_segments": "reader",
}

__all__ = ["Analysis", "analyze_capture", "CaptureError", "DUP_WINDOW_S", "ReadStats", "read_segments"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'shortflow.capture' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
