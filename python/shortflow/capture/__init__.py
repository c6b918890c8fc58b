"""Analysis of real packet captures (``shortflow pcap analyze``): a streaming pcap/pcapng
reader and the per-connection and per-client TCP analysis of the thesis' ch. 4 trace
study. Writing captures of simulated runs is :mod:`shortflow.pcap`."""

from .._lazy import lazy_attributes

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
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
