#!/usr/bin/env bash
# The grounded mutation corpus of issue 16, measured end to end: the
# Defects4J seeds of 15 projects (Chart has no git history, Closure is left
# out as in every earlier measurement), one fixed revision of each project
# (its bug 1) as --corpus, 1,400 candidates split by the reference set's
# mix, then Table 10 (synth fidelity) and the JVM criteria (synth verify).
#
#   scripts/grounded-corpus.sh D4J_PROJECTS REPOS OUT [BENCHFORGE]
#
# D4J_PROJECTS is framework/projects of a Defects4J checkout, REPOS the
# folder of clones (owner__name.git), OUT a new folder. Verification
# reads its dependency jars from /usr/share/java (README: the Debian
# packages the figures were measured with).
set -euo pipefail
d4j=${1:?usage: $0 D4J_PROJECTS REPOS OUT [BENCHFORGE]}
repos=${2:?usage: $0 D4J_PROJECTS REPOS OUT [BENCHFORGE]}
out=${3:?usage: $0 D4J_PROJECTS REPOS OUT [BENCHFORGE]}
bf=${4:-benchforge}

declare -A repo=([Cli]=apache/commons-cli [Codec]=apache/commons-codec [Collections]=apache/commons-collections
  [Compress]=apache/commons-compress [Csv]=apache/commons-csv [Gson]=google/gson [JacksonCore]=FasterXML/jackson-core
  [JacksonDatabind]=FasterXML/jackson-databind [JacksonXml]=FasterXML/jackson-dataformat-xml [Jsoup]=jhy/jsoup
  [JxPath]=apache/commons-jxpath [Lang]=apache/commons-lang [Math]=apache/commons-math [Mockito]=mockito/mockito
  [Time]=JodaOrg/joda-time)
projects=(Cli Codec Collections Compress Csv Gson JacksonCore JacksonDatabind JacksonXml Jsoup JxPath Lang Math Mockito Time)

mkdir -p "$out"
corpus=()
for p in "${projects[@]}"; do
  fixed=$(awk -F, 'NR == 2 { print $3 }' "$d4j/$p/active-bugs.csv") # bug 1's fixed revision
  corpus+=(--corpus "${repo[$p]}@$fixed")
done
list=$(IFS=,; echo "${projects[*]}")
"$bf" seeds extract --defects4j "$d4j" --repos "$repos" --projects "$list" \
  --out "$out/seeds.jsonl" --reference-set "$out/ref.jsonl" >"$out/seeds.txt"
"$bf" synth generate --generator mutation "${corpus[@]}" --repos "$repos" \
  --seeds "$out/seeds.jsonl" --total 1400 --out "$out/gen" >"$out/generate.txt"
"$bf" synth fidelity --pairs "$out/gen/pairs.jsonl" --seeds "$out/seeds.jsonl" --out "$out/fidelity" >"$out/fidelity.txt"
"$bf" synth verify --pairs "$out/gen/pairs.jsonl" --repos "$repos" --out "$out/jvm" >"$out/verify.txt"
grep -E "^pooled  " "$out/fidelity.txt" | head -7
grep -E 'Overall' "$out/verify.txt"
