package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// javaRepos commits n small Java repositories (each with its own invented
// vocabulary, an Apache-style licence header, foreign and own imports,
// cloned methods) under dir/<name>, and returns a manifest over them with
// the given roles.
func javaRepos(t *testing.T, dir string, roles []string) *Manifest {
	t.Helper()
	syl := []string{"zor", "bla", "quu", "fex", "mip", "dra", "kol", "vin", "tas", "rum", "pel", "gho"}
	m := &Manifest{Name: "synthetic", Include: []string{"**/src/main/java/**/*.java"}, Exclude: []string{"**/package-info.java"}}
	for r, role := range roles {
		word := func(i int) string {
			return syl[(r*7+i)%len(syl)] + syl[(r*3+i*5+1)%len(syl)] + string(rune('A'+r)) + syl[(i*11+r+2)%len(syl)] + string(rune('a'+i%26))
		}
		name := "repo" + string(rune('a'+r))
		rd := filepath.Join(dir, name)
		if err := os.MkdirAll(rd, 0o755); err != nil {
			t.Fatal(err)
		}
		b := gittest.NewIn(t, rd)
		for f := range 20 {
			var src strings.Builder
			src.WriteString("/*\n * Licensed to the Apache Software Foundation (ASF) under one or more\n * contributor license agreements.\n */\n")
			src.WriteString("package org.example." + name + ";\n\nimport java.util.List;\nimport org.example." + name + ".util." + word(2) + ";\n\n")
			src.WriteString("public class C" + word(f+3) + " {\n")
			for k := range 3 {
				src.WriteString("    public int " + word(f*3+k+20) + "(List<Integer> items) {\n        int acc = " + word(4) + ".start();\n" +
					"        for (int i = 0; i < items.size(); i++) {\n            acc += " + word(5) + "(items.get(i)) * " + word(6) + ".factor();\n        }\n" +
					"        " + word(8+f%5) + ".record(acc, " + word(13+k) + ");\n        return " + word(7) + "(acc);\n    }\n")
			}
			src.WriteString("}\n")
			b.Write("src/main/java/org/example/"+name+"/C"+word(f+3)+".java", src.String())
		}
		b.Write("src/main/java/org/example/"+name+"/package-info.java", "package org.example."+name+";\n")
		commit := b.Commit("import", gittest.Date(2024, 1, 2))
		m.Repos = append(m.Repos, Entry{Repo: "example/" + name, Commit: commit, Role: role})
	}
	return m
}

// TestRunSynthetic runs the whole testbed on real git repositories over a
// loopback-served target: members are found, non-members are not, the
// tables and checks are filled from the run, and the page renders.
func TestRunSynthetic(t *testing.T) {
	dir := t.TempDir()
	roles := []string{RoleMember, RoleMember, RoleMember, RoleNonMember, RoleNonMember, RoleNonMember, RoleNonMember, RoleBackground}
	m := javaRepos(t, dir, roles)
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Manifest: m, RepoDirs: []string{dir}, Seeds: []uint64{1, 2},
		Capacities: []Capacity{{Order: 4, MinCount: 2, Cache: 0.2}}, Controls: 1, MaxQueries: 30, Samples: 4, Snippets: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || len(res.Composition) != 2 {
		t.Fatalf("%d runs, %d compositions; want 2 seeds × 1 capacity", len(res.Runs), len(res.Composition))
	}
	c := res.Composition[0]
	if c.Members != 3 || c.NonMembers != 4 || c.Controls != 1 || c.Background != 1 || c.BackgroundDocs == 0 {
		t.Errorf("composition %+v", c)
	}
	for _, cr := range res.Runs {
		// One P0 for the method: an ablation is tested at the full
		// method's, its own recalibration only reported.
		for _, s := range cr.Summary {
			if s.P0 != cr.Summary[0].P0 || s.P0 <= 0 {
				t.Errorf("seed %d %s: P0 %v, full method's %v", cr.Seed, s.Config, s.P0, cr.Summary[0].P0)
			}
		}
		for _, r := range cr.Repos {
			if r.Files != 20 {
				t.Errorf("%s: %d files read, want 20 (package-info excluded)", r.Name, r.Files)
			}
			v := r.Verdicts[ConfigFull]
			if !r.Control && (r.Role == RoleMember) != v.Present {
				t.Errorf("seed %d %s (%s): %s, %s", cr.Seed, r.Name, r.Role, v.Verdict, v.Reason)
			}
			if r.Baselines == nil || r.Baselines.Ref == nil || r.RefCrossfit == nil {
				t.Errorf("%s: no baseline scores", r.Name)
			}
		}
	}
	if len(res.Table) != len(ecoConfigs) || len(res.Baselines) != len(baselineMethods) || len(baselineMethods) != 5 || len(res.Calibration) != 2*(len(ecoConfigs)-1) {
		t.Fatalf("table %d rows, baselines %d, calibration %d", len(res.Table), len(res.Baselines), len(res.Calibration))
	}
	if full := res.Table[0]; full.Config != ConfigFull || full.AUCMean != 1 || full.Seeds != 2 {
		t.Errorf("full method row %+v", full)
	}
	if len(res.Checks) != 9 || res.Checks[0].Name != "full method" || !res.Checks[0].Pass {
		t.Errorf("checks %+v", res.Checks)
	}
	var page strings.Builder
	if err := res.WritePage(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "calibration", "w/o-distinctiveness", "repoa"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestBoilerplate(t *testing.T) {
	src := "/*\n * Licensed to the ASF.\n */\npackage org.apache.commons.csv;\n\nimport java.io.Reader;\nimport org.apache.commons.io.IOUtils;\nimport org.apache.commons.csv.Token;\nimport static org.apache.commons.csv.Constants.CR;\n\nclass Lexer {}\n"
	got := Boilerplate([]byte(src), "org.apache.commons.csv")
	want := "/*\n * Licensed to the ASF.\n */\nimport java.io.Reader;\nimport org.apache.commons.io.IOUtils;\n"
	if got != want {
		t.Errorf("Boilerplate = %q, want %q", got, want)
	}
	files := []repoprobe.File{{Content: []byte("package org.apache.commons.csv;\n")}, {Content: []byte("package org.apache.commons.csv.io;\n")}, {Content: []byte("class X {}")}}
	if p := OwnPrefix(files); p != "org.apache.commons.csv" {
		t.Errorf("OwnPrefix = %q", p)
	}
}

func TestManifestErrors(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"json":   `{"repos": [`,
		"commit": `{"repos": [{"repo": "a/b", "commit": "abc", "role": "member"}]}`,
		"role":   `{"repos": [{"repo": "a/b", "commit": "0123456789012345678901234567890123456789", "role": "seen"}]}`,
		"few":    `{"repos": [{"repo": "a/b", "commit": "0123456789012345678901234567890123456789", "role": "member"}]}`,
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadManifest(p); !errors.Is(err, errs.ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
	}
	if _, err := Locate("nobody/nothing", []string{dir}); !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), "git clone --bare") {
		t.Errorf("Locate: %v", err)
	}
}

// TestShippedManifest: the committed ecosystem manifest is well formed
// and has the composition the issue asks for.
func TestShippedManifest(t *testing.T) {
	m, err := LoadManifest(filepath.Join("..", "..", "..", "testdata", "testbed", "apache-java.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := m.count(RoleMember) + m.count(RoleNonMember); n < 40 || m.count(RoleMember)*2 < n-1 || m.count(RoleMember)*2 > n+1 {
		t.Errorf("%d members of %d testbed repositories; want ≥ 40, half members", m.count(RoleMember), n)
	}
}

// TestSelectConfigsMatchesProbeCount: without repetitiveness a
// repository is probed as many times as under the full method, however
// many random positions are available, and not at all when the full
// method found nothing to ask.
func TestSelectConfigsMatchesProbeCount(t *testing.T) {
	mk := func(kind repoprobe.PatternKind, n int) []repoprobe.Query {
		var qs []repoprobe.Query
		for i := range n {
			qs = append(qs, repoprobe.Query{ID: fmt.Sprintf("%s%d", kind, i), Kind: kind, Prompt: "x = ", Target: fmt.Sprintf("word%d", i)})
		}
		return qs
	}
	so := repoprobe.SelectOptions{MaxQueries: 150, Seed: 1}
	for _, full := range []int{7, 0} {
		sel, stats, err := selectConfigs(context.Background(), candidates{full: mk(repoprobe.KindClone, full), single: mk(repoprobe.KindSingle, 60)}, so)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(sel[ConfigNoRepetitive]); got != full || len(sel[ConfigFull]) != full {
			t.Errorf("full method %d queries: w/o-repetitiveness selected %d, want %d", len(sel[ConfigFull]), got, full)
		}
		if st := stats[ConfigNoRepetitive]; st.Candidates != 60 || st.Selected != full {
			t.Errorf("full method %d queries: w/o-repetitiveness stats %+v", full, st)
		}
	}
}

// TestMineCandidatesAllWords: the "without distinctiveness" candidates
// are the full method's plus those of co-occurrences mined over every
// word, so a common word shared by the repository's files is a target
// there and never among the full method's candidates, and turning the
// criterion off only adds candidates.
func TestMineCandidatesAllWords(t *testing.T) {
	var files []repoprobe.File
	for i := range 6 {
		files = append(files, repoprobe.File{Path: fmt.Sprintf("src/F%d.java", i), Content: []byte(fmt.Sprintf(
			"class F%d {\n  void run%d() {\n    zorbConfig.loadWidget(%d);\n    Logger log = getLogger(%d);\n  }\n}\n", i, i, i, i))})
	}
	index := [][]repoprobe.File{files}
	for i := range 30 {
		index = append(index, []repoprobe.File{{Path: "A.java", Content: []byte(fmt.Sprintf("class A%d { Logger log = getLogger(%d); }\n", i, i))}})
	}
	freq := repoprobe.NewMapFreq(index)
	maxFrac := 2.5 / float64(freq.Repos())
	cs, pats, err := mineCandidates(context.Background(), files, freq, maxFrac, 50, 1)
	if err != nil {
		t.Fatal(err)
	}
	common := func(w string) bool { return w == "getLogger" || w == "Logger" }
	ids := map[string]bool{}
	for _, q := range cs.allWords {
		ids[q.ID] = true
	}
	sawDistinct := false
	for _, q := range cs.full {
		if !ids[q.ID] {
			t.Errorf("full method candidate %q (%s) missing without distinctiveness", q.Target, q.Kind)
		}
		if q.Kind == repoprobe.KindCooccur {
			sawDistinct = sawDistinct || q.Target == "loadWidget"
			if common(q.Target) {
				t.Errorf("full method co-occurrence target %q is common", q.Target)
			}
		}
	}
	if !sawDistinct {
		t.Error("full method: no co-occurrence query for loadWidget")
	}
	sawCommon := false
	for _, q := range cs.allWords {
		sawCommon = sawCommon || (q.Kind == repoprobe.KindCooccur && common(q.Target))
	}
	if !sawCommon {
		t.Error("w/o-distinctiveness candidates: no common co-occurrence target")
	}
	for _, p := range pats {
		for _, w := range p.Words {
			if common(w) {
				t.Errorf("full method pattern %v holds a common word", p.Words)
			}
		}
	}
	if len(cs.single) == 0 {
		t.Error("no random single-word candidates")
	}
	so := repoprobe.SelectOptions{Freq: freq, MaxRepoFrac: maxFrac, MaxQueries: 150, Seed: 1}
	sel, _, err := selectConfigs(context.Background(), cs, so)
	if err != nil {
		t.Fatal(err)
	}
	sawCommon = false
	for _, q := range sel[ConfigNoDistinct] {
		sawCommon = sawCommon || (q.Kind == repoprobe.KindCooccur && common(q.Target))
	}
	if !sawCommon {
		t.Errorf("w/o-distinctiveness selected no common co-occurrence target")
	}
}
