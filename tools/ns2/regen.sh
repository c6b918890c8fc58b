#!/bin/sh
# Regenerate every ns-2.35 golden in tests/golden/ns2/ (see README.md).
#
# usage: tools/ns2/regen.sh [all|dumbbell|ecn_red|red|pareto|spand|bench|configs] ...
#   JOBS=N   parallel ns processes (default 2)
#   KEEP=1   keep the work directory with the raw ns-2 outputs
#
# Needs: ns (Debian/Ubuntu package ns2, version 2.35), python3, gzip, xargs.
# CPU time of a whole run: about 20 minutes, nearly all of it the SPAND baseline
# (~470-560 s: its 1 ms completion polling is Tcl-heavy) and bench c (~560 s, run alone,
# 1.3 GB RSS); dumbbell, red and pareto take well under a minute each.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/tests/golden/ns2
JOBS=${JOBS:-2}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ns2golden.XXXXXX")
export HERE WORK
mkdir -p "$OUT"

command -v ns >/dev/null || { echo "ns not found: apt-get install ns2" >&2; exit 1; }
ver=$(echo 'puts [ns-version]; exit' | ns 2>/dev/null || true)
[ "$ver" = "2.35" ] || { echo "ns reports version '$ver', goldens are from 2.35" >&2; exit 1; }

now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }

dumbbell() {
    t0=$(now)
    for v in tahoe reno newreno; do for n in 1 4; do for s in plain delack; do
        echo "$v $n $s"
    done; done; done | xargs -P "$JOBS" -L 1 sh -c '
        cd "$WORK" && ns "$HERE/dumbbell.tcl" "$0" "$1" "$2" "$WORK/dumbbell_$0_$1_$2"'
    for f in "$WORK"/dumbbell_*.acks.csv; do
        b=$(basename "$f")
        gzip -9n < "$f" > "$OUT/$b.gz"
    done
    cp "$WORK"/dumbbell_*.summary.json "$OUT/"
    echo "dumbbell: $(elapsed "$t0") s"
}

ecn_red() {
    t0=$(now)
    # variant flows sink START (START as ECN_RED in gen_configs.py)
    printf '%s\n' "reno 1 plain 0.1" "reno 1 delack 0.6" "reno 2 plain 1.9" \
        "reno 2 delack 0.1" "newreno 1 plain 0.1" "newreno 1 delack 0.7" \
        "newreno 2 plain 1.05" "newreno 2 delack 0.1" | xargs -P "$JOBS" -L 1 sh -c '
        cd "$WORK" && ns "$HERE/ecn_red.tcl" "$0" "$1" "$2" "$3" "$WORK/ecn_red_$0_$1_$2"'
    for f in "$WORK"/ecn_red_*.acks.csv; do
        b=$(basename "$f")
        gzip -9n < "$f" > "$OUT/$b.gz"
    done
    cp "$WORK"/ecn_red_*.summary.json "$OUT/"
    echo "ecn_red: $(elapsed "$t0") s"
}

red() {
    t0=$(now)
    seq 1 10 | xargs -P "$JOBS" -I{} sh -c 'ns "$HERE/red.tcl" {} 200 > "$WORK/red_{}.json"'
    python3 "$HERE/aggregate.py" red "$WORK" "$OUT/red_stats.json"
    echo "red: $(elapsed "$t0") s"
}

pareto() {
    t0=$(now)
    seq 1 10 | xargs -P "$JOBS" -I{} sh -c 'ns "$HERE/pareto.tcl" {} 200 > "$WORK/pareto_{}.json"'
    python3 "$HERE/aggregate.py" pareto "$WORK" "$OUT/pareto_stats.json"
    echo "pareto: $(elapsed "$t0") s"
}

spand() {
    t0=$(now)
    # longest runs first so the two workers finish together
    for n in 20 6 1; do for v in reno-ssr reno-nssr newreno-ssr newreno-nssr; do
        for s in 1 2 3 4 5; do echo "$v $n $s"; done
    done; done | xargs -P "$JOBS" -L 1 sh -c '
        ns "$HERE/spand_baseline.tcl" "$0" "$1" 30 10 "$2" > "$WORK/spand_$0_$1_$2.out"'
    python3 "$HERE/aggregate.py" spand "$WORK" "$OUT/spand_baseline_stats.json"
    echo "spand: $(elapsed "$t0") s"
}

bench() {
    # one at a time: the wall times are part of the result
    # bench_<wl>.time: "wall_s user_s sys_s" (user+sys is the number to compare when
    # the machine is shared)
    for wl in a b c; do
        if [ -x /usr/bin/time ]; then
            /usr/bin/time -f "%e %U %S" -o "$WORK/bench_$wl.time" \
                ns "$HERE/bench.tcl" $wl > "$WORK/bench_$wl.out" 2> "$WORK/bench_$wl.err"
        else
            t0=$(now)
            ns "$HERE/bench.tcl" $wl > "$WORK/bench_$wl.out" 2> "$WORK/bench_$wl.err"
            echo "$(elapsed "$t0") nan nan" > "$WORK/bench_$wl.time"
        fi
        echo "bench $wl: $(cat "$WORK/bench_$wl.out"), wall/user/sys $(cat "$WORK/bench_$wl.time") s"
    done
    python3 "$HERE/aggregate.py" bench "$WORK" "$OUT/bench_ns2.json"
}

configs() {
    python3 "$HERE/gen_configs.py" "$OUT" --red-stats "$OUT/red_stats.json"
}

[ $# -eq 0 ] && set -- all
for what in "$@"; do
    case $what in
        all) dumbbell; ecn_red; red; pareto; spand; bench; configs ;;
        dumbbell|ecn_red|red|pareto|spand|bench|configs) $what ;;
        *) echo "unknown target $what" >&2; exit 1 ;;
    esac
done

if [ "${KEEP:-0}" = 1 ]; then echo "raw outputs kept in $WORK"; else rm -rf "$WORK"; fi
