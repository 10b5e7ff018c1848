#!/usr/bin/env bash
# make bench: each hot path of issue 19 against its floor, in one run.
# Every benchmark interleaves its side and its floor, so machine load falls
# on both; the ratios are what to compare, not the seconds. Paths that need
# data this machine lacks say so and how to get it.
#
#   BENCHFORGE_JVM_BENCH_CORPUS  pairs for the JVM row (default: the
#                                hand-written pairs; see jvm/floor_test.go)
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}

# bench PKG NAME BENCHTIME: run one benchmark, print its output lines.
bench() {
	$GO test -run '^$' -bench "^Benchmark$2\$" -benchtime "$3" -timeout 1h "$1" 2>&1
}

# metric OUTPUT NAME: the value reported under NAME on the benchmark line.
metric() {
	awk -v m="$2" '/^Benchmark/ { for (i = 2; i <= NF; i++) if ($i == m) v = $(i-1) } END { print v }' <<<"$1"
}

row() { printf '%-22s %-44s %s\n' "$1" "$2" "$3"; }

skipped() { grep -m1 -- '--- SKIP\|SKIP:\|skipping' <<<"$1" | sed 's/^ *//' || true; }

row "path" "floor" "ratio to floor"
row "----" "-----" "--------------"

out=$(bench ./internal/synth/jvm VerifyFloor 3x)
if v=$(metric "$out" x-floor) && [ -n "$v" ]; then
	row "synth verify" "one javac + one java of the compiled pairs" "${v}× [$(metric "$out" x-floor-min)–$(metric "$out" x-floor-max)]"
else
	row "synth verify" "one javac + one java of the compiled pairs" "skipped: $(skipped "$out")"
fi

out=$(bench ./internal/audit/repoprobe DedupScaling 1x)
if v=$(metric "$out" exp-last) && [ -n "$v" ]; then
	row "Stage I query dedup" "linear growth (exponent 1)" "exponent ${v} (last doubling), $(metric "$out" exp-mean) (mean of three)"
else
	row "Stage I query dedup" "linear growth (exponent 1)" "skipped: $(skipped "$out")"
fi

# The benchmark runs five interleaved rounds; each round's serve run is
# paired with its echo run, and the median ratio is printed with its
# range (requests never repeat across rounds: see postLoop).
out=$(bench ./internal/ngram ServeVsEcho 200x)
for c in c1 c8; do
	r=$(awk -v c="$c" '$1 ~ "^BenchmarkServeVsEcho/serve/"c"(#[0-9]+)?(-[0-9]+)?$" { s[ns++] = $3 }
		$1 ~ "^BenchmarkServeVsEcho/echo/"c"(#[0-9]+)?(-[0-9]+)?$" { e[ne++] = $3 }
		END {
			n = ns < ne ? ns : ne
			if (n == 0) exit
			for (i = 0; i < n; i++) r[i] = s[i] / e[i]
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
			med = n % 2 ? r[(n-1)/2] : (r[n/2-1] + r[n/2]) / 2
			printf "%.2f× [%.2f–%.2f], %d runs", med, r[0], r[n-1], n
		}' <<<"$out")
	if [ -n "$r" ]; then
		row "lm serve ($c)" "a trivial Go echo server, same requests" "$r"
	else
		row "lm serve ($c)" "a trivial Go echo server, same requests" "no figure: $(skipped "$out")"
	fi
done

out=$(bench ./internal/metrics MetricsFloor 1x)
if v=$(metric "$out" x-floor) && [ -n "$v" ]; then
	row "metrics (java.base)" "a bare go-tree-sitter parse" "${v}× [$(metric "$out" x-floor-min)–$(metric "$out" x-floor-max)]"
else
	row "metrics (java.base)" "a bare go-tree-sitter parse" "skipped: $(skipped "$out")"
fi
