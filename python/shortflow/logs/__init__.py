"""Web-server access-log analysis for TCP/SPAND (paper §5.2, spec §4.2 `spand-loganalyze`).

Streams a Common/Combined Log Format log once, in bounded memory, and computes

* Fig. 6: CDF of the time between consecutive requests from the same /24;
* Fig. 7: CDF over requests of the number of distinct /24s in the next 5 min;
* the /24-heuristic check of §5.2.1 from a precomputed ``ip hostname`` map.

>>> from shortflow.logs import analyze, write_outputs
>>> rep = analyze("access.log.gz", prefix=24, window_s=300)      # doctest: +SKIP
>>> rep.frac_gaps_below(300), rep.nets_percentile(95)             # doctest: +SKIP
>>> write_outputs(rep, "out/logs")                                # doctest: +SKIP

This subpackage is pure Python (matplotlib only for the plots) and does not
need the compiled simulator core.
"""

from .analyze import DEFAULT_IMAGE_EXTS, LogReport, SegmentStats, analyze, parse_duration
from .clf import MalformedLine, ParsedLine, classify_host, parse_clf_time, parse_line
from .output import plot_fig6, plot_fig7, write_outputs
from .prefix import PrefixCheck, domain_of, parse_hostname_line, prefix_check

__all__ = [
    "DEFAULT_IMAGE_EXTS",
    "LogReport",
    "MalformedLine",
    "ParsedLine",
    "PrefixCheck",
    "SegmentStats",
    "analyze",
    "classify_host",
    "domain_of",
    "parse_clf_time",
    "parse_duration",
    "parse_hostname_line",
    "parse_line",
    "plot_fig6",
    "plot_fig7",
    "prefix_check",
    "write_outputs",
]
