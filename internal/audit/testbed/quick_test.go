package testbed

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
)

// TestTestbedEndToEnd trains a served n-gram target on half of a tiny
// synthetic corpus and checks that Stage I separates seen from unseen
// repositories and that sequential stopping keeps every verdict.
func TestTestbedEndToEnd(t *testing.T) {
	dir := t.TempDir()
	synthCorpus(t, dir, 8, 12)
	res, err := Quick(context.Background(), QuickOptions{
		Corpus:        []string{dir},
		CorpusOptions: repoprobe.CorpusOptions{MinFiles: 5, MaxRepos: 8},
		Seed:          3, MaxQueries: 40, Samples: 5, Order: 4, Reuse: 1, ReuseFiles: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Repos) != 9 {
		t.Fatalf("%d repositories, want 8 + 1 reuse", len(res.Repos))
	}
	seen, controls, reuse := 0, 0, 0
	for _, r := range res.Repos {
		if r.Seen {
			seen++
		}
		if r.Control {
			controls++
			continue
		}
		if r.Reuse != "" {
			reuse++
		}
		full, seq := r.Verdicts[ConfigFull], r.Verdicts[ConfigSequential]
		if full.Verdict != seq.Verdict {
			t.Errorf("%s: sequential %s vs full %s", r.Name, seq.Verdict, full.Verdict)
		}
		if r.Seen && full.Verdict != repoprobe.Present {
			t.Errorf("seen %s: %s (%s)", r.Name, full.Verdict, full.Reason)
		}
		if !r.Seen && r.Reuse == "" && full.Verdict == repoprobe.Present {
			t.Errorf("unseen %s: present (%s)", r.Name, full.Reason)
		}
	}
	if seen != 4 || controls != 2 || reuse != 1 {
		t.Errorf("seen %d controls %d reuse %d; want 4, 2, 1", seen, controls, reuse)
	}
	sum := res.Summary[0]
	if sum.Config != ConfigFull || sum.AUC == nil || *sum.AUC < 0.99 || sum.TPR != 1 {
		t.Errorf("summary %+v", sum)
	}
	if res.Summary[1].Calls > sum.Calls {
		t.Errorf("sequential used %d calls, fixed %d", res.Summary[1].Calls, sum.Calls)
	}
	// The artifacts are the run's own: probing the target again with a
	// repository's full-method queries and the run's settings gives its
	// verdict back.
	art := res.Artifacts
	if art == nil || art.Target == nil || len(art.Files) != len(res.Repos) || art.Order != 4 || art.Probe.Samples != 5 {
		t.Fatalf("artifacts %+v", art)
	}
	r := res.Repos[0]
	for _, x := range res.Repos {
		if !x.Control && x.Seen { // controls were probed before P0 was calibrated
			r = x
			break
		}
	}
	tm, stop, err := serve(art.Target, "again")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	o := art.Probe
	o.Lang, o.P0 = r.Lang, res.Summary[0].P0
	v, err := repoprobe.Probe(context.Background(), tm, r.Name, art.Queries[r.Name], o)
	if err != nil {
		t.Fatal(err)
	}
	if full := r.Verdicts[ConfigFull]; v.Hits != full.Hits || v.Verdict != full.Verdict || len(art.Files[r.Name]) != r.Files {
		t.Errorf("%s again: %d hits %s; the run had %d hits %s", r.Name, v.Hits, v.Verdict, full.Hits, full.Verdict)
	}
}

func TestTestbedTooFewRepos(t *testing.T) {
	dir := t.TempDir()
	synthCorpus(t, dir, 3, 6)
	_, err := Quick(context.Background(), QuickOptions{Corpus: []string{dir}, CorpusOptions: repoprobe.CorpusOptions{MinFiles: 2}})
	if err == nil {
		t.Fatal("3 repositories accepted")
	}
	if _, err := repoprobe.LoadCorpus([]string{dir + "/missing.zip"}, repoprobe.CorpusOptions{}); err == nil {
		t.Error("missing corpus accepted")
	}
}

// synthCorpus writes nRepos small Java repositories under dir, each with
// its own invented vocabulary (so a model trained on one cannot guess
// another's names), a licence header, cloned methods and co-occurring
// calls.
func synthCorpus(t *testing.T, dir string, nRepos, nFiles int) {
	t.Helper()
	syl := []string{"zor", "bla", "quu", "fex", "mip", "dra", "kol", "vin", "tas", "rum", "pel", "gho"}
	for r := range nRepos {
		word := func(i int) string {
			a, b, c := syl[(r*7+i)%len(syl)], syl[(r*3+i*5+1)%len(syl)], syl[(i*11+r+2)%len(syl)]
			return a + b + string(rune('A'+r)) + c + "x" + string(rune('a'+i%26))
		}
		name := "repo" + string(rune('a'+r))
		for f := range nFiles {
			src := "/*\n * Copyright " + word(0) + " project " + name + ", all rights reserved.\n * Distributed under the " + word(1) + " licence.\n */\n" +
				"package " + name + ";\n\nimport " + name + ".util." + word(2) + ";\n\n" +
				"public class C" + word(f+3) + " {\n"
			for m := range 3 {
				src += "    public int " + word(f*3+m+20) + "(int[] items) {\n" +
					"        int acc = " + word(4) + ".start();\n" +
					"        for (int i = 0; i < items.length; i++) {\n" +
					"            acc += " + word(5) + "(items[i]) * " + word(6) + ".factor();\n" +
					"        }\n" +
					"        return " + word(7) + "(acc);\n    }\n"
			}
			src += "}\n"
			p := filepath.Join(dir, name, "src", "C"+word(f+3)+".java")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
