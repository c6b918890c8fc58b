# shortflow — the two commands a new user needs:
#   make demo   install everything, run a reduced TCP/SPAND Fig. 10 experiment, write out/demo/report.html
#   make test   Rust unit + ns-2 golden tests, the Python test suite, and the quick TCP/SPAND reproduction
# Everything is installed into ./.venv (Python) and ./target (Rust); nothing global but apt/rustup if missing.

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
VPIP   := $(VPY) -m pip
SF     := $(VENV)/bin/shortflow
CARGO  ?= cargo
# bash for `time` on each quick reproduction in test-repro (its wall and CPU seconds in the
# CI log show which one to trim before make test nears its 15-minute budget).
SHELL  := /bin/bash
export TIMEFORMAT := [time] %R s wall, %U s user CPU

.PHONY: all install native demo test test-rust test-python test-tools test-repro ns2 bench goldens repro-spand repro-faststart clean

all: install

# ---- installation ---------------------------------------------------------
$(VENV)/.deps: pyproject.toml
	@command -v $(CARGO) >/dev/null || { echo "error: cargo (Rust >= 1.80) is needed: install it with rustup" >&2; exit 1; }
	@echo "installing the Python package and its dependencies (with Ray and the test tools) into $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@$(VPIP) install -q --disable-pip-version-check --upgrade pip
	@$(VPIP) install -q --disable-pip-version-check "maturin>=1.5,<2"
	@$(VPIP) install -q --disable-pip-version-check -e ".[test,ray]"
	@touch $@

# Rebuild the native module (release) in place when Rust sources changed. The package
# and its dependencies are installed above; --skip-install keeps maturin from running pip
# again (which listed every requirement and "Ignoring ray" for the extras it was not given).
# Its output is shown only when the build fails.
native: $(VENV)/.deps
	@echo "building the simulator core (Rust, release)"
	@out=$$($(VENV)/bin/maturin develop --release -q --skip-install -m crates/shortflow-py/Cargo.toml 2>&1) \
		|| { printf '%s\n' "$$out" >&2; exit 1; }

install: native

# ---- the README's two commands ------------------------------------------
demo: install
	$(SF) repro spand --demo --out out/demo
	@echo "report: out/demo/report.html"

test: test-rust test-python test-repro

test-rust:
	$(CARGO) test --release -p shortflow-core

test-python: install test-tools
	$(VPY) -m pytest -q tests/python

# tshark and tcptrace check the pcap export (tests/python/test_pcap.py skips those checks
# without them). Installed with apt-get only when missing, only as root with apt-get;
# non-interactive, and the wireshark-common question about capturing as non-root is
# pre-answered (no).
test-tools:
	@if command -v tshark >/dev/null && command -v tcptrace >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "installing tshark and tcptrace (apt-get) for the pcap tests"; \
		echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark tcptrace >/dev/null; } \
			|| echo "warning: could not install tshark/tcptrace: the pcap tool checks will be skipped" >&2; \
	else \
		echo "note: tshark/tcptrace are missing (install them as root: apt-get install tshark tcptrace); the pcap tool checks will be skipped" >&2; \
	fi

# The TCP/SPAND and thesis ch. 9 reproductions end to end at reduced size (about a minute on 2 cores):
# every figure and every claim must be produced (claims may fail; that is reported).
test-repro: install
	# Fair-share slow start (P3), quick: 10 runs of 600 s; every claim must be evaluated.
	rm -rf out/ci-repro-fairshare-quick
	time $(SF) repro fairshare --quick --out out/ci-repro-fairshare-quick
	$(VPY) -c "import json, sys, math; c = json.load(open('out/ci-repro-fairshare-quick/claims.json')); n = sum(not math.isnan(x['ours']) for x in c); print('fairshare claims evaluated:', n, 'of', len(c)); sys.exit(0 if n == len(c) else 1)"
	rm -rf out/ci-repro-quick
	time $(SF) repro spand --quick --no-progress --out out/ci-repro-quick
	$(VPY) -c "import json, sys; c = json.load(open('out/ci-repro-quick/claims.json'))['counts']; print('claims:', c); sys.exit(1 if c['skipped'] or c['evaluated'] < c['claims'] - 1 else 0)"
	rm -rf out/ci-repro-asym-quick
	time $(SF) repro asym --quick --out out/ci-repro-asym-quick
	$(VPY) -c "import json, sys; c = json.load(open('out/ci-repro-asym-quick/claims.json'))['claims']; miss = [x['id'] for x in c if x['pass'] is None and '-fs' not in x['id'] and not x['id'].startswith('ns-')]; print('asym claims:', len(c), 'without verdict:', miss); sys.exit(1 if miss else 0)"
	# TCP Vienna (P4 Figs. 1, 3, 5, 6), quick: about half a minute; every listed figure must be produced.
	rm -rf out/ci-repro-vienna-quick
	time $(SF) repro vienna --quick --out out/ci-repro-vienna-quick
	$(VPY) -c "import json, sys; c = json.load(open('out/ci-repro-vienna-quick/claims.json'))['counts']; print('vienna claims:', c); sys.exit(1 if c['evaluated'] < 14 else 0)"
	# Web transfers (thesis ch. 4-5: Figs. 4.2, 4.3, 5.6, 5.7), quick: about 15 s; every claim but the
	# "not yet run" rows (ch. 6-7 session results) must be evaluated.
	rm -rf out/ci-repro-web-quick
	time $(SF) repro web --quick --out out/ci-repro-web-quick
	$(VPY) -c "import json, sys; c = json.load(open('out/ci-repro-web-quick/claims.json'))['counts']; print('web claims:', c); sys.exit(1 if c['evaluated'] + c['not_run'] < c['claims'] or c['evaluated'] < 15 else 0)"
	# Linux profile vs real Linux (issue 19), quick: four reno configurations, a few seconds; every row must be simulated.
	rm -rf out/ci-repro-linux-quick
	time $(SF) repro linux --quick --out out/ci-repro-linux-quick
	$(VPY) -c "import json, sys; r = json.load(open('out/ci-repro-linux-quick/rows.json')); miss = [x['tag'] for x in r if x['ours_s'] is None]; print('linux rows:', len(r), 'pass:', sum(x['passed'] for x in r), 'not simulated:', miss); sys.exit(1 if miss or not r else 0)"
	# TCP Fast Start (thesis ch. 8), quick: about 50 s on 2 idle cores (26 s CPU); every claim must be evaluated.
	rm -rf out/ci-repro-faststart-quick
	time $(SF) repro faststart --quick --no-progress --out out/ci-repro-faststart-quick
	$(VPY) -c "import json, sys; c = json.load(open('out/ci-repro-faststart-quick/claims.json'))['counts']; print('claims:', c); sys.exit(1 if c['evaluated'] < c['claims'] else 0)"

# ---- more -------------------------------------------------------------------
# ns-2.35 is an oracle, never a runtime dependency: `make bench` measures it beside us in
# the same run, `make goldens` regenerates the goldens from it, and the full Fast Start
# reproduction adds its oracle rows. Installed with apt-get (Debian/Ubuntu package ns2)
# only when `ns` is missing, only as root with apt-get; otherwise these commands go on
# without it and say so (bench: no ns-2 column; goldens: stop).
ns2:
	@if command -v ns >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "installing ns-2.35 (apt-get install ns2), the oracle measured beside us"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2 >/dev/null; } \
			|| echo "warning: could not install ns2: ns-2.35 will not be measured or run" >&2; \
	else \
		echo "note: ns (ns-2.35) is missing (install it as root: apt-get install ns2); it will not be measured or run" >&2; \
	fi

bench: install ns2
	$(SF) bench

goldens: ns2
	tools/ns2/regen.sh

repro-spand: install
	$(SF) repro spand --out out/repro-spand

repro-faststart: install ns2
	$(SF) repro faststart --out out/repro-faststart

repro-linux: install
	$(SF) repro linux --out out/repro-linux

clean:
	rm -rf $(VENV) target out
