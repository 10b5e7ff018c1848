#!/usr/bin/env bash
# make bench: each hot path of issue 19 against its floor, in one run.
# Every benchmark interleaves its side and its floor, so machine load falls
# on both; the ratios are what to compare, not the seconds. Paths that need
# data this machine lacks say so and how to get it.
#
#   BENCHFORGE_JVM_BENCH_CORPUS  pairs for the JVM row (default: the
#                                hand-written pairs; see jvm/floor_test.go)
#   BENCHFORGE_STAGE2_REPO       a clone (bare or not) for the Stage II row,
#                                e.g. a clone of apache/commons-lang; the
#                                row is skipped when unset
#   BENCHFORGE_STAGE2_NAME       its owner/name (default: from the clone's
#                                directory name, owner__name[.git])
#   BENCHFORGE_STAGE2_SAMPLES    benchmark file for that row (default: the
#                                vendored testdata/labels/stage2 Java samples
#                                of that repository), cutoff
#                                BENCHFORGE_STAGE2_CUTOFF (default 2023-09-01),
#                                BENCHFORGE_STAGE2_ROUNDS timed pairs (default 3)
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
# range (requests never repeat across rounds: see postLoop), then the
# median ratio of the rounds' process CPU per request (cpu-µs/req),
# which a loaded machine disturbs less than wall time: on a 2-core
# machine at load 15, single rounds ranged 1.1–9.6× in wall time.
# Twenty rounds of 50 requests (the same 2000 requests) or ten of 200
# gave medians no steadier there, so the rounds are kept as they were.
out=$(bench ./internal/ngram ServeVsEcho 200x)
for c in c1 c8; do
	r=$(awk -v c="$c" 'function med(a, n,   i, j, t) {
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n-1)/2] : (a[n/2-1] + a[n/2]) / 2
		}
		$1 ~ "^BenchmarkServeVsEcho/serve/"c"(#[0-9]+)?(-[0-9]+)?$" { k = ns++; s[k] = $3; sc[k] = $5 }
		$1 ~ "^BenchmarkServeVsEcho/echo/"c"(#[0-9]+)?(-[0-9]+)?$" { k = ne++; e[k] = $3; ec[k] = $5 }
		END {
			n = ns < ne ? ns : ne
			if (n == 0) exit
			for (i = 0; i < n; i++) { r[i] = s[i] / e[i]; q[i] = sc[i] / ec[i] }
			m = med(r, n)
			printf "%.2f× [%.2f–%.2f], %d runs; CPU per request %.2f×", m, r[0], r[n-1], n, med(q, n)
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

# Stage II: `audit patch` on one repository's samples against the floor of
# reading, with one raw `git cat-file --batch`, every blob the run reads.
# A first, untimed run records the blobs through a git on PATH that copies
# cat-file's requests (blob requests are <tree>:<path>); then the floor
# and the run alternate (BENCHFORGE_STAGE2_ROUNDS times), each run with a
# fresh --out so no verdict is reused.
stage2() (
	local repo=${BENCHFORGE_STAGE2_REPO:-}
	if [ -z "$repo" ]; then
		echo "skipped: set BENCHFORGE_STAGE2_REPO to a clone, e.g. of apache/commons-lang"
		return
	fi
	if ! git --git-dir="$repo" rev-parse --git-dir >/dev/null 2>&1 && ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
		echo "skipped: BENCHFORGE_STAGE2_REPO=$repo is not a git repository"
		return
	fi
	local gitdir
	gitdir=$(git -C "$repo" rev-parse --absolute-git-dir 2>/dev/null || (cd "$repo" && pwd))
	local name=${BENCHFORGE_STAGE2_NAME:-}
	if [ -z "$name" ]; then
		name=$(basename "$repo" .git)
		name=${name/__//}
	fi
	local tmp
	tmp=$(mktemp -d) || return
	trap 'rm -rf "$tmp"' EXIT
	local samples=${BENCHFORGE_STAGE2_SAMPLES:-}
	if [ -z "$samples" ]; then
		samples=$tmp/samples.jsonl
		grep -F -e "\"repo\":\"$name\"" -e "\"repo\": \"$name\"" testdata/labels/stage2/samples-java.jsonl >"$samples" || true
		if [ ! -s "$samples" ]; then
			echo "skipped: no vendored Stage II samples of $name (set BENCHFORGE_STAGE2_SAMPLES)"
			return
		fi
	fi
	printf '{"%s": "%s"}\n' "$name" "$gitdir" >"$tmp/mapping.json"
	if ! $GO build -o "$tmp/benchforge" ./cmd/benchforge; then
		echo "skipped: go build failed"
		return
	fi
	local realgit
	realgit=$(command -v git)
	mkdir "$tmp/rec"
	cat >"$tmp/rec/git" <<-WRAP
		#!/bin/sh
		case " \$* " in
		*" cat-file --batch "*) tee "$tmp/requests.\$\$" | "$realgit" "\$@"; exit ;;
		esac
		exec "$realgit" "\$@"
	WRAP
	chmod +x "$tmp/rec/git"
	run() { # run OUT [PATH]: one audit patch, quiet
		"$tmp/benchforge" audit patch --benchmark "$samples" --format auto --mapping "$tmp/mapping.json" \
			--cutoff "${BENCHFORGE_STAGE2_CUTOFF:-2023-09-01}" --out "$1" --json >"$1.summary" 2>"$1.err"
	}
	if ! PATH="$tmp/rec:$PATH" run "$tmp/rec.jsonl"; then
		echo "skipped: audit patch failed: $(tail -1 "$tmp/rec.jsonl.err")"
		return
	fi
	cat "$tmp"/requests.* 2>/dev/null | grep ":" >"$tmp/blobs" || true
	local n
	n=$(wc -l <"$tmp/blobs")
	if [ "$n" -eq 0 ]; then
		echo "skipped: the run read no blobs"
		return
	fi
	local ratios=() t0 t1 t2
	for ((i = 1; i <= ${BENCHFORGE_STAGE2_ROUNDS:-3}; i++)); do
		t0=$(date +%s%N)
		git --git-dir="$gitdir" cat-file --batch <"$tmp/blobs" >/dev/null
		t1=$(date +%s%N)
		run "$tmp/run$i.jsonl" || { echo "skipped: audit patch failed: $(tail -1 "$tmp/run$i.jsonl.err")"; return; }
		t2=$(date +%s%N)
		ratios+=("$(( (t2 - t1) / 1000 )) $(( (t1 - t0) / 1000 ))")
	done
	printf '%s\n' "${ratios[@]}" | awk -v n="$n" -v s="$(wc -l <"$tmp/rec.jsonl")" '
		{ r[NR] = $1 / $2; run[NR] = $1; fl[NR] = $2 }
		END {
			for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) {
				if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
				if (run[j] < run[i]) { t = run[i]; run[i] = run[j]; run[j] = t }
				if (fl[j] < fl[i]) { t = fl[i]; fl[i] = fl[j]; fl[j] = t }
			}
			m = (NR + 1) / 2
			printf "%.0f× [%.0f–%.0f] (run %.2f s, floor %.3f s; %d samples, %d blobs)\n", r[m], r[1], r[NR], run[m] / 1e6, fl[m] / 1e6, s, n
		}'
)

row "Stage II (audit patch)" "git cat-file --batch of the blobs it reads" "$(stage2)"
