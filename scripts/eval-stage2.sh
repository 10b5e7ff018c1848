#!/usr/bin/env bash
# eval-stage2.sh: run Stage II (`audit patch`) on every sample of the
# labelled development set testdata/labels/stage2/ and score it with
# `audit eval` (AUC, TPR, FPR overall and per language, high+medium labels).
#
#   scripts/eval-stage2.sh --repos DIR [--out DIR] [--bin PATH] [--cutoff LIST] [-- audit-patch flags...]
#   scripts/eval-stage2.sh --clone     [--out DIR] ...   (clones from GitHub into the clone cache)
#
# DIR holds clones named owner__name (bare or not, e.g.
# apache__commons-lang.git). The samples come from the set itself
# (samples-java.jsonl, samples-python.jsonl), so nothing outside the
# repository is read. Flags after -- go to `audit patch` (e.g.
# --no-history for the one-jump ablation).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repos="" clone="" out="stage2-eval" bin="" cutoff="2023-09-01"
labels="$root/testdata/labels/stage2"
while [ $# -gt 0 ]; do
  case "$1" in
    --repos) repos=$2; shift 2 ;;
    --clone) clone=1; shift ;;
    --out) out=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --cutoff) cutoff=$2; shift 2 ;;
    --labels) labels=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "eval-stage2.sh: unknown flag $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
if [ -z "$repos" ] && [ -z "$clone" ]; then
  echo "eval-stage2.sh: pass --repos DIR (clones named owner__name) or --clone" >&2; exit 2
fi
mkdir -p "$out"
if [ -z "$bin" ]; then
  bin="$out/benchforge"
  (cd "$root" && go build -o "$bin" ./cmd/benchforge)
fi
src=(); [ -n "$repos" ] && src+=(--repos "$repos"); [ -n "$clone" ] && src+=(--clone)
verdicts="$out/verdicts.jsonl"
for lang in java python; do
  echo "== $lang" >&2
  "$bin" audit patch --benchmark "$labels/samples-$lang.jsonl" --format jsonl "${src[@]}" \
    --cutoff "$cutoff" --out "$verdicts" "$@" > "$out/patch-$lang.txt"
  head -2 "$out/patch-$lang.txt" >&2
done
"$bin" audit eval --verdicts "$verdicts" --labels "$labels/java.jsonl,$labels/python.jsonl" \
  --confidence high,medium --cutoff "$cutoff"
