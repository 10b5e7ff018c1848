package rescore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/shareddata"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func ptr(x float64) *float64 { return &x }

func smallSamples() []bench.Sample {
	var ss []bench.Sample
	for i, d := range []string{"easy", "easy", "easy", "hard", "hard", "hard"} {
		ss = append(ss, bench.Sample{ID: "s" + string(rune('1'+i)), Difficulty: d})
	}
	return ss
}

// TestRescoreHandChecked: 6 samples, s1 and s4 contaminated.
//
//	A resolves s1 s2 s3 s4: all 4/6, clean {s2,s3,s5,s6} 2/4,
//	  drop (2/3-1/2)/(2/3) = 0.25; easy 3/3 → 2/2 drop 0; hard 1/3 → 0/2 drop 1.
//	B resolves s5 (+ an unknown id): all 1/6, clean 1/4, drop (1/6-1/4)/(1/6) = -0.5;
//	  easy 0/3 → 0/2 drop 0 (all rate 0); hard 1/3 → 1/2 drop -0.5.
func TestRescoreHandChecked(t *testing.T) {
	vp := write(t, "v.jsonl", `{"sample_id":"s1","model":"m","contaminated":true}
{"sample_id":"s2","model":"m","contaminated":false}

{"sample_id":"s4","model":"m","contaminated":true,"evidence":{"x":1}}
{"sample_id":"s5","model":"m","contaminated":false}
{"sample_id":"s6","model":"m","contaminated":false}
`)
	lp := write(t, "lb.jsonl", `{"submission":"a","date":"2024-03-01","resolved":["s1","s2","s3","s4"]}
{"submission":"20250102_b","models":["x"],"resolved":["s5","zzz"]}
`)
	v, subs := readInputs(t, vp, lp)
	// s3 has no verdict: counted clean here (--unjudged clean), so the
	// figures are the paper's optimistic ones.
	res, err := Rescore(smallSamples(), v, subs, Options{Unjudged: UnjudgedClean})
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{
		VerdictKind: "verdict", Samples: 6, Contaminated: 2, Clean: 3, Unjudged: 1, UnjudgedPolicy: UnjudgedClean,
		Difficulties: []string{"easy", "hard"},
		Buckets:      []BucketCount{{"easy", 3, 1, 1}, {"hard", 3, 2, 0}},
		Submissions: []SubmissionResult{
			{Submission: "a", Date: "2024-03-01", Year: 2024, Model: "m",
				Overall: Cell{"overall", Rate{4, 6, 4.0 / 6}, Rate{2, 4, 0.5}, ptr(0.25), 1},
				ByDifficulty: []Cell{
					{"easy", Rate{3, 3, 1}, Rate{2, 2, 1}, ptr(0), 1},
					{"hard", Rate{1, 3, 1.0 / 3}, Rate{0, 2, 0}, ptr(1), 0},
				}},
			{Submission: "20250102_b", Date: "2025-01-02", Year: 2025, Model: "m", Unknown: 1,
				Overall: Cell{"overall", Rate{1, 6, 1.0 / 6}, Rate{1, 4, 0.25}, ptr(-0.5), 1},
				ByDifficulty: []Cell{
					{"easy", Rate{0, 3, 0}, Rate{0, 2, 0}, ptr(0), 1},
					{"hard", Rate{1, 3, 1.0 / 3}, Rate{1, 2, 0.5}, ptr(-0.5), 0},
				}},
		},
		ByYear: []YearResult{
			{Year: 2024, Submissions: 1, AllRate: 4.0 / 6, CleanRate: 0.5, Drop: 0.25, ByDifficulty: []*float64{ptr(0), ptr(1)}},
			{Year: 2025, Submissions: 1, AllRate: 1.0 / 6, CleanRate: 0.25, Drop: -0.5, ByDifficulty: []*float64{ptr(0), ptr(-0.5)}},
		},
	}
	if diff := cmp.Diff(want, res, cmp.Comparer(within1e12)); diff != "" {
		t.Errorf("Rescore (-want +got):\n%s", diff)
	}
	checkFormatCell(t, res.Submissions[0].Overall, "4/6 → 2/4 ↓25.0%")
	checkFormatCell(t, res.Submissions[1].Overall, "1/6 → 1/4 ↑50.0%")
	if got := FormatCell(Cell{All: Rate{1, 2, .5}}); got != "1/2 → 0/0 n/a" {
		t.Errorf("FormatCell(no clean) = %q", got)
	}
	// The drop plot shows every submission and bucket with its value.
	checkDropPlot(t, res, ">hard<", ">20250102_b<", ">100<", ">-50<")
	if p, err := (&Result{Submissions: res.Submissions}).DropPlot(); p != nil || err != nil {
		t.Errorf("DropPlot without difficulty buckets = %v, %v; want nil, nil", p, err)
	}
}

// readInputs reads the verdicts at vp and the leaderboard at lp.
func readInputs(t *testing.T, vp, lp string) (*Verdicts, []Submission) {
	t.Helper()
	v, err := ReadVerdicts(vp)
	if err != nil {
		t.Fatal(err)
	}
	subs, err := ReadLeaderboard(lp)
	if err != nil {
		t.Fatal(err)
	}
	return v, subs
}

func within1e12(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }

func checkFormatCell(t *testing.T, c Cell, want string) {
	t.Helper()
	if got := FormatCell(c); got != want {
		t.Errorf("FormatCell = %q, want %q", got, want)
	}
}

// checkDropPlot: res has a drop plot whose SVG contains each of wants.
func checkDropPlot(t *testing.T, res *Result, wants ...string) {
	t.Helper()
	plot, err := res.DropPlot()
	if err != nil || plot == nil {
		t.Fatalf("DropPlot = %v, %v", plot, err)
	}
	for _, want := range wants {
		if !strings.Contains(string(plot.SVG), want) {
			t.Errorf("drop plot lacks %s", want)
		}
	}
}

// TestUnjudgedPolicies: unjudged samples are their own bucket. s1
// contaminated; s2 clean; s3 no verdict; s4 repository insufficient and
// patch unknown (cannot tell); s5 repository absent, patch unknown (clean:
// absent decides); s6 clean. Submission a resolves s1–s4.
//
//	exclude:      all {s1,s2,s5,s6} 2/4, clean {s2,s5,s6} 1/3, drop (1/2-1/3)/(1/2) = 1/3
//	clean:        all 4/6, clean {s2,s3,s4,s5,s6} 3/5, drop (2/3-3/5)/(2/3) = 0.1
//	contaminated: all 4/6, clean {s2,s5,s6} 1/3, drop 0.5
func TestUnjudgedPolicies(t *testing.T) {
	vp := write(t, "v.jsonl", `{"sample_id":"s1","model":"m","contaminated":true,"evidence":{"repo_verdict":"present","patch_verdict":"present"}}
{"sample_id":"s2","model":"m","contaminated":false,"evidence":{"repo_verdict":"present","patch_verdict":"absent"}}
{"sample_id":"s4","model":"m","contaminated":false,"evidence":{"repo_verdict":"insufficient","patch_verdict":"unknown"}}
{"sample_id":"s5","model":"m","contaminated":false,"evidence":{"repo_verdict":"absent","patch_verdict":"unknown"}}
{"sample_id":"s6","model":"m","contaminated":false}
`)
	lp := write(t, "lb.jsonl", `{"submission":"a","date":"2024-03-01","resolved":["s1","s2","s3","s4"]}`+"\n")
	v, subs := readInputs(t, vp, lp)
	for _, tc := range []struct{ policy, cell, label string }{
		{"", "2/4 → 1/3 ↓33.3%", "unjudged excluded"},
		{UnjudgedClean, "4/6 → 3/5 ↓10.0%", "unjudged counted clean"},
		{UnjudgedContaminated, "4/6 → 1/3 ↓50.0%", "unjudged counted contaminated"},
	} {
		res, err := Rescore(smallSamples(), v, subs, Options{Unjudged: tc.policy})
		if err != nil {
			t.Fatal(err)
		}
		checkPolicy(t, res, tc.policy, tc.cell, tc.label)
	}
	if _, err := Rescore(smallSamples(), v, subs, Options{Unjudged: "maybe"}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("--unjudged maybe: %v, want a usage error", err)
	}
	checkPatchUnjudged(t)
}

// checkPolicy checks a rescoring of TestUnjudgedPolicies' verdicts under
// policy: the counts as judged, the overall cell and the policy's label
// in the Markdown and tables.
func checkPolicy(t *testing.T, res *Result, policy, cell, label string) {
	t.Helper()
	if res.Unjudged != 2 || res.Clean != 3 || res.Contaminated != 1 {
		t.Errorf("%q: %d clean, %d contaminated, %d unjudged; want 3, 1, 2", policy, res.Clean, res.Contaminated, res.Unjudged)
	}
	if got := FormatCell(res.Submissions[0].Overall); got != cell {
		t.Errorf("%q: overall %q, want %q", policy, got, cell)
	}
	md := res.Markdown()
	for _, want := range []string{"2 unjudged", "Overall [" + label + "]", "All rate [" + label + "]", "Clean rate [" + label + "]", "easy [" + label + "]"} {
		if !strings.Contains(md, want) {
			t.Errorf("%q: rescore.md lacks %q:\n%s", policy, want, md)
		}
	}
	// The year table uses the main table's arrows, not a signed number.
	if y := res.Tables()[1]; y.Rows[0][4] != FormatDrop(res.Submissions[0].Overall.Drop) {
		t.Errorf("%q: year table drop %v, main table %s", policy, y.Rows[0][4], FormatDrop(res.Submissions[0].Overall.Drop))
	}
}

// checkPatchUnjudged: in a Stage II file, unknown and not_applicable
// verdicts are unjudged.
func checkPatchUnjudged(t *testing.T) {
	t.Helper()
	pv := write(t, "p.jsonl", `{"sample_id":"s1","present":true,"verdict":"present","blocks":[]}
{"sample_id":"s2","present":false,"verdict":"unknown","blocks":[]}
{"sample_id":"s3","present":false,"verdict":"not_applicable","blocks":[]}
{"sample_id":"s4","present":false,"verdict":"absent","blocks":[]}
`)
	p, err := ReadVerdicts(pv)
	if err != nil {
		t.Fatal(err)
	}
	if u := p.Unjudged[""]; !slices.Equal([]bool{u["s1"], u["s2"], u["s3"], u["s4"]}, []bool{false, true, true, false}) {
		t.Errorf("Stage II unjudged = %v, want s2 (unknown) and s3 (not_applicable)", p.Unjudged[""])
	}
}

func TestPatchVerdictsAndModels(t *testing.T) {
	pv := write(t, "p.jsonl", `{"sample_id":"s1","present":true,"verdict":"present","blocks":[]}
{"sample_id":"s2","present":false,"verdict":"unknown","blocks":[]}
`)
	v, err := ReadVerdicts(pv)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]any{v.Kind, v.By[""]["s1"], v.By[""]["s2"]}, []any{"patch", true, false}) {
		t.Fatalf("patch verdicts = %+v", v)
	}
	// Two models: submissions pick theirs by name.
	mv := write(t, "m.jsonl", `{"sample_id":"s1","model":"gpt-4","contaminated":true}
{"sample_id":"s1","model":"claude-3","contaminated":false}
`)
	v, err = ReadVerdicts(mv)
	if err != nil {
		t.Fatal(err)
	}
	subs := []Submission{
		{Submission: "x", Models: []string{"gpt-4-1106-preview"}, Resolved: []string{"s1"}},
		{Submission: "y", Models: []string{"claude-3"}, Resolved: []string{"s1"}},
		{Submission: "z", Models: []string{"llama"}, Resolved: []string{"s1"}},
	}
	res, err := Rescore(nil, v, subs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range res.Submissions {
		got[s.Submission] = s.Model + " " + FormatCell(s.Overall)
	}
	want := map[string]string{"x": "gpt-4 1/1 → 0/0 n/a", "y": "claude-3 1/1 → 1/1 ↓0.0%"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-model (-want +got):\n%s", diff)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Submission != "z" {
		t.Errorf("skipped = %+v, want z", res.Skipped)
	}
	if _, err := Rescore(nil, v, subs, Options{Model: "nope"}); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("unknown --model: %v, want ErrNotFound", err)
	}
}

func submissionNames(subs []Submission) []string {
	var names []string
	for _, s := range subs {
		names = append(names, s.Submission)
	}
	return names
}

func TestReadErrors(t *testing.T) {
	for name, tt := range map[string]struct {
		content, want string
	}{
		"bad json":  {"{\"sample_id\":\"a\",\"contaminated\":true}\n{oops\n", ":2:"},
		"mixed":     {"{\"sample_id\":\"a\",\"contaminated\":true}\n{\"sample_id\":\"b\",\"present\":true}\n", ":2:"},
		"duplicate": {"{\"sample_id\":\"a\",\"contaminated\":true}\n{\"sample_id\":\"a\",\"contaminated\":false}\n", ":2:"},
		"neither":   {"{\"sample_id\":\"a\"}\n", ":1:"},
		"no id":     {"{\"contaminated\":true}\n", ":1:"},
		"not bool":  {"{\"sample_id\":\"a\",\"contaminated\":\"yes\"}\n", ":1:"},
		"empty":     {"\n\n", "no verdicts"},
	} {
		_, err := ReadVerdicts(write(t, "v.jsonl", tt.content))
		if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want ErrInput containing %q", name, err, tt.want)
		}
	}
	if _, err := ReadVerdicts(filepath.Join(t.TempDir(), "none")); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("missing verdicts: %v", err)
	}
	for name, content := range map[string]string{
		"bad line":    "{\"submission\":\"a\",\"resolved\":[]}\nnope\n",
		"no resolved": "{\"submission\":\"a\"}\n{\"submission\":\"b\",\"resolved\":[]}\n",
		"no name":     "{\"resolved\":[\"x\"]}\n{\"resolved\":[]}\n",
		"empty":       "",
		"bad array":   "[{\"submission\":1}]",
	} {
		if _, err := ReadLeaderboard(write(t, "lb.jsonl", content)); !errors.Is(err, errs.ErrInput) {
			t.Errorf("leaderboard %s: err = %v, want ErrInput", name, err)
		}
	}
}

func TestReadLeaderboardResultsJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20240620_sweagent_claude3.5sonnet", "results")
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, "results.json")
	os.WriteFile(p, []byte("{\n  \"no_generation\": [],\n  \"resolved\": [\"a\", \"b\"]\n}\n"), 0o644)
	subs, err := ReadLeaderboard(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(submissionNames(subs), []string{"20240620_sweagent_claude3.5sonnet"}) || len(subs[0].Resolved) != 2 {
		t.Fatalf("results.json = %+v", subs)
	}
	if tm, ok := subs[0].Time(); !ok || tm.Format("2006-01-02") != "2024-06-20" {
		t.Errorf("date from folder = %v %v", tm, ok)
	}
	arr := write(t, "lb.json", `[{"name":"n1","resolved":["a"]}]`)
	subs, err = ReadLeaderboard(arr)
	if err != nil || !slices.Equal(submissionNames(subs), []string{"n1"}) {
		t.Errorf("array = %+v, %v", subs, err)
	}
}

// TestEvery3Fixture checks the synthetic verdict file follows its rule:
// the i-th sample of swebench_verified.jsonl (0-based) is contaminated iff
// i%3 == 0. The vendored subset is the dataset's first ten records, so it
// checks the first ten lines; the full copy checks all 500.
func TestEvery3Fixture(t *testing.T) {
	bp, full := shareddata.Either(t, "swebench", "swebench_verified.jsonl")
	samples, _, err := bench.Load(context.Background(), bp, bench.FormatAuto, bench.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/verdicts_every3.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for sc.Scan() {
		v := decodeVerdict(t, sc.Bytes())
		if i < len(samples) {
			checkEvery3(t, i, v, samples[i].ID)
		}
		i++
	}
	if full && i != len(samples) || i < len(samples) {
		t.Fatalf("%d verdicts for %d samples", i, len(samples))
	}
	if !full {
		t.Logf("checked the first %d of %d verdicts against the vendored records (all of them need %s)", len(samples), i, shareddata.Env)
	}
}

func decodeVerdict(t *testing.T, line []byte) Verdict {
	t.Helper()
	var v Verdict
	if err := json.Unmarshal(line, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// checkEvery3: v, on line i+1 of the every-3rd file, is the verdict of
// sample id, contaminated iff i%3 == 0.
func checkEvery3(t *testing.T, i int, v Verdict, id string) {
	t.Helper()
	if v.SampleID != id || v.Contaminated != (i%3 == 0) {
		t.Fatalf("line %d: %+v, want sample %s contaminated=%v", i+1, v, id, i%3 == 0)
	}
}

// TestGoldenVerifiedLeaderboard rescores the real SWE-bench Verified
// leaderboard copy with the every-3rd-sample verdicts.
func TestGoldenVerifiedLeaderboard(t *testing.T) {
	bp := shareddata.Full(t, "swebench", "swebench_verified.jsonl")
	lp := shareddata.Full(t, "swebench", "leaderboard_verified.jsonl")
	res := rescoreEvery3(t, bp, lp)
	if !slices.Equal([]int{res.Samples, res.Contaminated, len(res.Submissions), len(res.Skipped)}, []int{500, 167, 20, 0}) {
		t.Fatalf("summary: %d samples, %d contaminated, %d submissions, %d skipped", res.Samples, res.Contaminated, len(res.Submissions), len(res.Skipped))
	}
	for _, s := range res.Submissions {
		if s.Overall.All.Total != 500 || s.Overall.Clean.Total != 333 || s.Unknown != 0 {
			t.Errorf("%s: %+v unknown %d", s.Submission, s.Overall, s.Unknown)
		}
	}
	js, _ := json.MarshalIndent(res, "", "  ")
	golden.Check(t, "testdata/verified_every3.md", []byte(res.Markdown()))
	golden.Check(t, "testdata/verified_every3.json", append(js, '\n'))
	checkPage(t, res, "20251124_mini-v1.16.0_claude-opus-4-5-20251101")
}

// rescoreEvery3 rescores the leaderboard at lp on the benchmark at bp
// with the every-3rd-sample verdicts.
func rescoreEvery3(t *testing.T, bp, lp string) *Result {
	t.Helper()
	samples, _, err := bench.Load(context.Background(), bp, bench.FormatAuto, bench.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ReadVerdicts("testdata/verdicts_every3.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	subs, err := ReadLeaderboard(lp)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Rescore(samples, v, subs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkPage checks that the HTML page of res has its plot and names the
// submission sub.
func checkPage(t *testing.T, res *Result, sub string) {
	t.Helper()
	page, err := res.Page("rescore")
	if err != nil {
		t.Fatal(err)
	}
	var html strings.Builder
	if err := report.Render(&html, page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "<svg") || !strings.Contains(html.String(), sub) {
		t.Errorf("HTML page lacks the plot or a submission")
	}
}

// TestGoldenVendoredLeaderboard rescores the vendored leaderboard excerpt
// (ten submissions, resolved ids over all 500 Verified samples) on the
// vendored ten samples with the every-3rd-sample verdicts: ids outside the
// ten count as unknown, and the tables are golden.
func TestGoldenVendoredLeaderboard(t *testing.T) {
	res := rescoreEvery3(t, shareddata.Vendored(t, "swebench", "swebench_verified.jsonl"), shareddata.Vendored(t, "swebench", "leaderboard_verified.jsonl"))
	// Samples 0, 3, 6 and 9 are contaminated.
	if !slices.Equal([]int{res.Samples, res.Contaminated, len(res.Submissions), len(res.Skipped)}, []int{10, 4, 10, 0}) {
		t.Fatalf("summary: %d samples, %d contaminated, %d submissions, %d skipped", res.Samples, res.Contaminated, len(res.Submissions), len(res.Skipped))
	}
	for _, s := range res.Submissions {
		if s.Overall.All.Total != 10 || s.Overall.Clean.Total != 6 || s.Unknown == 0 {
			t.Errorf("%s: %+v unknown %d", s.Submission, s.Overall, s.Unknown)
		}
	}
	js, _ := json.MarshalIndent(res, "", "  ")
	golden.Check(t, "testdata/vendored_every3.md", []byte(res.Markdown()))
	golden.Check(t, "testdata/vendored_every3.json", append(js, '\n'))
}
