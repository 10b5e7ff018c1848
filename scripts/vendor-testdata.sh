#!/usr/bin/env bash
# Rebuilds the small real data under testdata/defects4j and testdata/swebench
# from full copies, so the selection is reproducible and reviewable:
#
#   scripts/vendor-testdata.sh D4J_PROJECTS SWEBENCH_DIR
#
# D4J_PROJECTS is framework/projects of a github.com/rjust/defects4j checkout
# (the copy here came from commit ca4a0ef98686bcd375336b1066acd6a54e875e34);
# SWEBENCH_DIR holds swebench_verified.jsonl, multi_swe_bench_java.jsonl and
# leaderboard_verified.jsonl as described in testdata/swebench/README.md.
# The tests' expected numbers and golden files depend on this selection:
# change it and rerun them with -update.
set -euo pipefail
d4j=${1:?usage: $0 D4J_PROJECTS SWEBENCH_DIR}
swe=${2:?usage: $0 D4J_PROJECTS SWEBENCH_DIR}
cd "$(dirname "$0")/.."
out=testdata/defects4j

# One or two bugs per seeds-scan outcome (runtime NPE/IAE/AIOOBE/NFE/CCE/
# SIOOBE/ISE, JUnit-only, checked-only, other unchecked, project subclass,
# test-origin) from Apache-2.0 projects, plus one deprecated bug.
declare -A active=([Lang]="1 3 5 6 12 35" [Cli]="1 2 5 14 23 24" [Math]="1")
declare -A deprecated=([Lang]="2")

for p in "${!active[@]}"; do
  rm -rf "${out:?}/$p"
  mkdir -p "$out/$p/patches" "$out/$p/trigger_tests" "$out/$p/modified_classes"
  ids="${active[$p]} ${deprecated[$p]:-}"
  for f in active-bugs.csv deprecated-bugs.csv; do
    sel=${active[$p]}
    [ "$f" = deprecated-bugs.csv ] && sel=${deprecated[$p]:-}
    head -1 "$d4j/$p/$f" >"$out/$p/$f"
    for n in $sel; do grep "^$n," "$d4j/$p/$f" >>"$out/$p/$f"; done
  done
  : >"$out/$p/dir-layout.csv"
  for n in $ids; do
    for rev in $( (grep -h "^$n," "$d4j/$p/active-bugs.csv" "$d4j/$p/deprecated-bugs.csv" || true) | cut -d, -f2,3 | tr , ' '); do
      grep "^$rev," "$d4j/$p/dir-layout.csv" >>"$out/$p/dir-layout.csv" || true
    done
    cp "$d4j/$p/patches/$n.src.patch" "$d4j/$p/patches/$n.test.patch" "$out/$p/patches/"
    cp "$d4j/$p/trigger_tests/$n" "$out/$p/trigger_tests/"
    cp "$d4j/$p/modified_classes/$n".* "$out/$p/modified_classes/" 2>/dev/null || true
  done
done

# SWE-bench Verified: its first ten records in dataset order (all
# astropy/astropy, BSD-3-Clause), so they line up with the first ten lines
# of internal/audit/rescore/testdata/verdicts_every3.jsonl.
mkdir -p testdata/swebench
head -10 "$swe/swebench_verified.jsonl" >testdata/swebench/swebench_verified.jsonl
# Multi-SWE-bench Java: one record each from three Apache-2.0 projects.
grep -E '"instance_id": ?"(apache__dubbo-7041|fasterxml__jackson-core-980|google__gson-1703)"' \
  "$swe/multi_swe_bench_java.jsonl" >testdata/swebench/multi_swe_bench_java.jsonl
# Leaderboard: the submissions whose resolved lists come from MIT-licensed
# sources (B, C, D in the README); source A is CC BY-NC 4.0 and stays out.
grep -E '"source": ?"[BCD]:' "$swe/leaderboard_verified.jsonl" >testdata/swebench/leaderboard_verified.jsonl
wc -l testdata/swebench/*.jsonl
