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

.PHONY: all install native demo test test-rust test-python test-repro bench goldens repro-spand clean

all: install

# ---- installation ---------------------------------------------------------
$(VENV)/.deps: pyproject.toml
	@command -v $(CARGO) >/dev/null || { echo "error: cargo (Rust >= 1.80) is needed: install it with rustup" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(VPIP) install -q --upgrade pip
	$(VPIP) install -q "maturin>=1.5,<2"
	$(VPIP) install -q -e ".[test,ray]"
	@touch $@

# Rebuild the native module (release) when Rust sources changed.
native: $(VENV)/.deps
	$(VENV)/bin/maturin develop --release -q -m crates/shortflow-py/Cargo.toml

install: native

# ---- the README's two commands ------------------------------------------
demo: install
	$(SF) repro spand --demo --out out/demo
	@echo "report: out/demo/report.html"

test: test-rust test-python test-repro

test-rust:
	$(CARGO) test --release -p shortflow-core

test-python: install
	$(VPY) -m pytest -q tests/python

# The TCP/SPAND reproduction end to end at reduced size (about a minute on 2 cores):
# every figure and every claim must be produced (claims may fail; that is reported).
test-repro: install
	rm -rf out/ci-repro-quick
	$(SF) repro spand --quick --no-progress --out out/ci-repro-quick
	$(VPY) -c "import json, sys; c = json.load(open('out/ci-repro-quick/claims.json'))['counts']; print('claims:', c); sys.exit(1 if c['skipped'] or c['evaluated'] < c['claims'] - 1 else 0)"

# ---- more -------------------------------------------------------------------
bench: install
	$(SF) bench

goldens:
	tools/ns2/regen.sh

repro-spand: install
	$(SF) repro spand --out out/repro-spand

clean:
	rm -rf $(VENV) target out
