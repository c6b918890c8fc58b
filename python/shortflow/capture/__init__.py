"""Analysis of real packet captures (``shortflow pcap analyze``): a streaming pcap/pcapng
reader and the per-connection and per-client TCP analysis of the thesis' ch. 4 trace
study. Writing captures of simulated runs is :mod:`shortflow.pcap`."""

from .analyze import Analysis, analyze_capture
from .reader import CaptureError, ReadStats, read_segments

__all__ = ["Analysis", "analyze_capture", "CaptureError", "ReadStats", "read_segments"]
