#!/usr/bin/env bash
# eval-stage2.sh: run Stage II (`audit patch`) on every sample of the
# labelled development set testdata/labels/stage2/ and score it with
# `audit eval` (AUC, TPR, FPR overall and per language, high+medium labels).
#
#   scripts/eval-stage2.sh --repos DIR [--out DIR] [--bin PATH] [--cutoff LIST] [-- audit-patch flags...]
#   scripts/eval-stage2.sh --clone     [--out DIR] ...   (clones from GitHub into the cache)
#
# DIR holds bare clones named owner__name.git (e.g. apache__commons-lang.git).
# --d4j and --swebench point at the Defects4J metadata directory and the
# SWE-bench Verified JSONL (defaults: /work/shared/data/...). Flags after
# -- go to `audit patch` (e.g. --no-history for the one-jump ablation).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repos="" clone="" out="stage2-eval" bin="" cutoff="2023-09-01"
d4j=/work/shared/data/defects4j swe=/work/shared/data/swebench/swebench_verified.jsonl
labels="$root/testdata/labels/stage2"
while [ $# -gt 0 ]; do
  case "$1" in
    --repos) repos=$2; shift 2 ;;
    --clone) clone=1; shift ;;
    --out) out=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --cutoff) cutoff=$2; shift 2 ;;
    --d4j) d4j=$2; shift 2 ;;
    --swebench) swe=$2; shift 2 ;;
    --labels) labels=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "eval-stage2.sh: unknown flag $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
if [ -z "$repos" ] && [ -z "$clone" ]; then
  echo "eval-stage2.sh: pass --repos DIR (bare clones owner__name.git) or --clone" >&2; exit 2
fi
if [ -z "$bin" ]; then
  bin="$out/benchforge"; mkdir -p "$out"
  (cd "$root" && go build -o "$bin" ./cmd/benchforge)
fi
mkdir -p "$out"
src=(); [ -n "$repos" ] && src+=(--repos "$repos"); [ -n "$clone" ] && src+=(--clone)
ids="$out/labelled-ids.txt"
cat "$labels"/*.jsonl | python3 -c 'import sys,json
for l in sys.stdin:
    l=l.strip()
    if l: print(json.loads(l)["sample_id"])' | sort -u > "$ids"
verdicts="$out/verdicts.jsonl"
for p in Lang Math Time JacksonCore JacksonDatabind Compress Collections JxPath Mockito; do
  [ -d "$d4j/$p" ] || continue
  echo "== $p" >&2
  "$bin" audit patch --benchmark "$d4j/$p" "${src[@]}" --cutoff "$cutoff" --out "$verdicts" "$@" > "$out/patch-$p.txt"
  head -2 "$out/patch-$p.txt" >&2
done
if [ -f "$swe" ]; then
  sub="$out/swebench-labelled.jsonl"
  python3 - "$swe" "$ids" "$sub" <<'PY'
import sys, json
ids = set(open(sys.argv[2]).read().split())
with open(sys.argv[1]) as f, open(sys.argv[3], "w") as o:
    for l in f:
        if l.strip() and json.loads(l)["instance_id"] in ids:
            o.write(l)
PY
  echo "== SWE-bench Verified (labelled samples)" >&2
  "$bin" audit patch --benchmark "$sub" --format swebench "${src[@]}" --cutoff "$cutoff" --out "$verdicts" "$@" > "$out/patch-swebench.txt"
  head -2 "$out/patch-swebench.txt" >&2
fi
lab=$(ls "$labels"/*.jsonl | paste -sd, -)
"$bin" audit eval --verdicts "$verdicts" --labels "$lab" --confidence high,medium --cutoff "$cutoff"
