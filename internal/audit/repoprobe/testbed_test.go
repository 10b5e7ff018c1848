package repoprobe

import (
	"context"
	"testing"
)

// TestTestbedEndToEnd trains a served n-gram target on half of a tiny
// synthetic corpus and checks that Stage I separates seen from unseen
// repositories and that sequential stopping keeps every verdict.
func TestTestbedEndToEnd(t *testing.T) {
	dir := t.TempDir()
	synthCorpus(t, dir, 8, 12)
	res, err := Testbed(context.Background(), TestbedOptions{
		Corpus:        []string{dir},
		CorpusOptions: CorpusOptions{MinFiles: 5, MaxRepos: 8},
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
		if r.Seen && full.Verdict != Present {
			t.Errorf("seen %s: %s (%s)", r.Name, full.Verdict, full.Reason)
		}
		if !r.Seen && r.Reuse == "" && full.Verdict == Present {
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
	v, err := Probe(context.Background(), tm, r.Name, art.Queries[r.Name], o)
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
	_, err := Testbed(context.Background(), TestbedOptions{Corpus: []string{dir}, CorpusOptions: CorpusOptions{MinFiles: 2}})
	if err == nil {
		t.Fatal("3 repositories accepted")
	}
	if _, err := LoadCorpus([]string{dir + "/missing.zip"}, CorpusOptions{}); err == nil {
		t.Error("missing corpus accepted")
	}
}
