// Package pipelinetest builds a small, real audit setting for tests of the
// audit pipeline and its CLI: two Java repositories built with git
// (internal/gitrepo/gittest, fixed dates), an n-gram target model trained on
// one of them ("seen") and served over loopback HTTP, an n-gram reference
// model trained on neither, a reference index over both plus generic code,
// and a generic-JSONL benchmark whose samples' patches persist, are
// reverted, or belong to a repository that is not there.
package pipelinetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/audit/refindex"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/ngram"
)

// Sample ids of the benchmark and what the audit must decide.
const (
	SeenPersists   = "seen-1"    // seen repository, fix persists: contaminated
	SeenReverted   = "seen-2"    // seen repository, fix reverted before the cutoff: clean
	UnseenPersists = "unseen-1"  // unseen repository, fix persists: clean
	MissingRepo    = "missing-1" // repository not cloned: clean, flagged
	SeenRepo       = "acme/seen" // repository names
	UnseenRepo     = "acme/unseen"
	Cutoff         = "2023-01-01"
)

// Fixture is the built setting.
type Fixture struct {
	Dir        string            // root of everything below
	ReposDir   string            // clones named owner__name
	Benchmark  string            // generic JSONL
	Lines      map[string]string // sample id → its benchmark line
	IndexPath  string            // reference index (refindex format)
	TargetSpec string            // openai:seen-target@http://127.0.0.1:port/v1
	RefSpec    string            // openai:reference@...
	// Target counts the HTTP requests the target server received.
	Target *Counter
}

// Counter wraps a handler and counts its requests.
type Counter struct {
	h http.Handler
	n atomic.Int64
}

func (c *Counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

// Requests returns the number of requests served so far.
func (c *Counter) Requests() int64 { return c.n.Load() }

type vocab struct {
	org, Org, factor, Factor, index, Index, count, wobble string
	// handler family: words substituted for the placeholders of handler
	words map[string]string
}

var (
	seenVocab = vocab{"zorblax", "Zorblax", "quibbleFactor", "QuibbleFactor", "snorkelIndex", "SnorkelIndex", "vexillumCount", "frobnicate",
		map[string]string{"ORG": "Zorblax", "org": "zorblax", "QUEUE": "GlimmerQueue", "queue": "glimmerQueue", "LOCK": "SpindleLock",
			"lock": "spindleLock", "FLUX": "Flummox", "dribble": "dribbleEvent", "drain": "sluiceUntil", "hold": "clenchTight"}}
	unseenVocab = vocab{"plimsoll", "Plimsoll", "grommetRatio", "GrommetRatio", "tessellaMap", "TessellaMap", "wimbleTotal", "perambulate",
		map[string]string{"ORG": "Plimsoll", "org": "plimsoll", "QUEUE": "BrindleStack", "queue": "brindleStack", "LOCK": "TackleGate",
			"lock": "tackleGate", "FLUX": "Kerfuffle", "dribble": "sprinkleSignal", "drain": "siphonBelow", "hold": "graspFirmly"}}
)

const handlerTemplate = `/*
 * Part of the ORG toolkit. Maintained by the ORG platform team;
 * report problems to the org-dev mailing list with a FLUX trace attached.
 */
package com.org.handlers;

import com.org.queue.QUEUE;
import com.org.sync.LOCK;

public final class HandlerNUM implements FLUXHandler {
    private final QUEUE queue = new QUEUE();
    private final LOCK lock = LOCK.acquire("handler-NUM");

    @Override
    public void dribble(Object event) {
        lock.hold();
        try {
            queue.offer(event);
            queue.drain(NUM);
        } finally {
            lock.release();
        }
    }
}
`

var placeholder = regexp.MustCompile(`[A-Za-z]+`)

func handler(v vocab, i int) string {
	return placeholder.ReplaceAllStringFunc(handlerTemplate, func(w string) string {
		if r, ok := v.words[w]; ok {
			return r
		}
		return w
	})
}

func widget(v vocab, i int) string {
	return fmt.Sprintf(`/*
 * Copyright 2019 %[2]s Industries. Licensed under the %[2]s Public License,
 * version 2; you may not use this file except under the %[2]s terms.
 */
package com.%[1]s.core;

import com.%[1]s.util.%[4]s;
import com.%[1]s.util.%[6]s;

public class Widget%[9]d {
    private final %[4]s %[3]s = new %[4]s(%[9]d);
    private %[6]s %[5]s;

    public int %[7]s%[9]d(int limit) {
        int total = 0;
        for (int k = 0; k < limit; k++) {
            total += %[3]s.%[8]s(k) * %[5]s.depth();
        }
        if (total > limit * %[9]d) {
            %[5]s = %[5]s.%[8]s(total);
        }
        return total + %[9]d;
    }
}
`, v.org, v.Org, v.factor, v.Factor, v.index, v.Index, v.count, v.wobble, i)
}

const calcBuggy = `package com.%s.core;

public class Calc {
    public int combine(int left, int right) {
        int base = left * 2;
        return base - right;
    }
}
`

const calcFixed = `package com.%s.core;

public class Calc {
    public int combine(int left, int right) {
        int base = left * 2;
        return base + right;
    }
}
`

const rangeBuggy = `package com.%s.core;

public class Range {
    public boolean contains(int lo, int hi, int x) {
        return x > lo && x < hi;
    }
}
`

const rangeFixed = `package com.%s.core;

public class Range {
    public boolean contains(int lo, int hi, int x) {
        return x >= lo && x <= hi;
    }
}
`

type sample struct {
	ID         string         `json:"id"`
	Benchmark  string         `json:"benchmark"`
	Repo       string         `json:"repo"`
	Language   string         `json:"language"`
	BaseCommit string         `json:"base_commit"`
	FixCommit  string         `json:"fix_commit,omitempty"`
	Patch      string         `json:"patch"`
	CreatedAt  string         `json:"created_at,omitempty"`
	Difficulty string         `json:"difficulty,omitempty"`
	Meta       map[string]any `json:"meta,omitempty"`
}

// New builds the fixture under t.TempDir() and starts the model servers
// (stopped at the end of the test). It takes about a second.
func New(t testing.TB) *Fixture {
	t.Helper()
	root := t.TempDir()
	f := &Fixture{Dir: root, ReposDir: filepath.Join(root, "repos"), Lines: map[string]string{}}
	must(t, os.MkdirAll(f.ReposDir, 0o755))
	seenFiles, seenSamples := buildRepo(t, f.ReposDir, SeenRepo, seenVocab, true)
	_, unseenSamples := buildRepo(t, f.ReposDir, UnseenRepo, unseenVocab, false)
	missing := unseenSamples[0]
	missing.ID, missing.Repo = MissingRepo, "acme/missing"
	f.writeBenchmark(t, append(append(seenSamples, unseenSamples...), missing))

	// Target: trained on the seen repository's snapshot only.
	seenDir := filepath.Join(root, "train-target", "seen")
	writeTree(t, seenDir, seenFiles)
	target := train(t, seenDir)
	// Reference: generic code that is in neither repository.
	genDir := filepath.Join(root, "corpus")
	writeGeneric(t, genDir)
	reference := train(t, genDir)
	// Reference index: the generic corpus plus both repositories.
	writeTree(t, filepath.Join(genDir, "seen"), seenFiles)
	ix, err := refindex.Build(context.Background(), []refindex.Source{{Path: genDir, Kind: refindex.KindDir}, {Path: filepath.Join(f.ReposDir, "acme__unseen"), Kind: refindex.KindDir, Prefix: "unseen/"}}, refindex.Options{})
	must(t, err)
	f.IndexPath = filepath.Join(root, "ref.idx")
	must(t, ix.Save(f.IndexPath))

	f.Target = &Counter{h: ngram.NewServer(target, "seen-target")}
	f.TargetSpec = "openai:seen-target@" + serve(t, f.Target)
	f.RefSpec = "openai:reference@" + serve(t, ngram.NewServer(reference, "reference"))
	return f
}

// buildRepo builds repository name (owner__name under reposDir) from
// vocabulary v: its sources, a buggy Calc fixed by the first sample and,
// when reverts, a Range fix (the second sample) reverted before the
// cutoff, then a commit after the cutoff. It returns the files of the
// cutoff snapshot and the samples.
func buildRepo(t testing.TB, reposDir, name string, v vocab, reverts bool) (files map[string]string, samples []sample) {
	dir := filepath.Join(reposDir, strings.ReplaceAll(name, "/", "__"))
	must(t, os.MkdirAll(dir, 0o755))
	b := gittest.NewIn(t, dir)
	files = writeSources(b, v)
	calc := fmt.Sprintf("src/main/java/com/%s/core/Calc.java", v.org)
	rng := fmt.Sprintf("src/main/java/com/%s/core/Range.java", v.org)
	b.Write(calc, fmt.Sprintf(calcBuggy, v.org))
	b.Write(rng, fmt.Sprintf(rangeBuggy, v.org))
	c1 := b.Commit("initial", gittest.Date(2020, 1, 1))
	b.Write(calc, fmt.Sprintf(calcFixed, v.org))
	c2 := b.Commit("fix combine", gittest.Date(2020, 2, 1))
	samples = append(samples, sample{ID: strings.TrimPrefix(name, "acme/") + "-1", Repo: name, BaseCommit: c1, FixCommit: c2,
		Patch: b.Git("diff", c1, c2) + "\n", Difficulty: "easy"})
	files[calc] = fmt.Sprintf(calcFixed, v.org)
	files[rng] = fmt.Sprintf(rangeBuggy, v.org)
	if reverts {
		b.Write(rng, fmt.Sprintf(rangeFixed, v.org))
		c3 := b.Commit("fix contains", gittest.Date(2020, 3, 1))
		samples = append(samples, sample{ID: strings.TrimPrefix(name, "acme/") + "-2", Repo: name, BaseCommit: c2, FixCommit: c3,
			Patch: b.Git("diff", c2, c3) + "\n", Difficulty: "hard"})
		b.Write(rng, fmt.Sprintf(rangeBuggy, v.org))
		b.Commit("revert contains fix", gittest.Date(2020, 4, 1))
	}
	// A post-cutoff commit that must not be seen by Stage I or II.
	b.Write("NOTES.md", "post-cutoff\n")
	b.Commit("after the cutoff", gittest.Date(2024, 1, 1))
	return files, samples
}

// writeSources writes a repository's 24 widgets and 16 handlers in
// vocabulary v and returns them by path.
func writeSources(b *gittest.Builder, v vocab) map[string]string {
	files := map[string]string{}
	for i := 1; i <= 24; i++ {
		p := fmt.Sprintf("src/main/java/com/%s/core/Widget%d.java", v.org, i)
		files[p] = widget(v, i)
		b.Write(p, files[p])
		if i <= 16 {
			h := fmt.Sprintf("src/main/java/com/%s/handlers/Handler%d.java", v.org, i)
			files[h] = strings.ReplaceAll(handler(v, i), "NUM", fmt.Sprint(i))
			b.Write(h, files[h])
		}
	}
	return files
}

// writeBenchmark writes the samples as generic JSONL with a meta object,
// so byte-exact re-emission in clean.jsonl is checked.
func (f *Fixture) writeBenchmark(t testing.TB, samples []sample) {
	var bench strings.Builder
	for i, s := range samples {
		s.Benchmark, s.Language, s.CreatedAt = "fixture", "java", "2020-02-01T00:00:00Z"
		s.Meta = map[string]any{"order": i, "note": "kept verbatim"}
		line, err := json.Marshal(s)
		must(t, err)
		f.Lines[s.ID] = string(line)
		bench.Write(line)
		bench.WriteByte('\n')
	}
	f.Benchmark = filepath.Join(f.Dir, "bench.jsonl")
	must(t, os.WriteFile(f.Benchmark, []byte(bench.String()), 0o644))
}

// writeGeneric writes three packages of generic Java classes under dir.
func writeGeneric(t testing.TB, dir string) {
	for g := 1; g <= 3; g++ {
		gen := map[string]string{}
		for i := 1; i <= 4; i++ {
			gen[fmt.Sprintf("Generic%d.java", i)] = fmt.Sprintf("package generic%d;\n\npublic class Generic%d {\n    public int size() {\n        return %d;\n    }\n\n    public boolean isEmpty() {\n        return size() == 0;\n    }\n}\n", g, i, i)
		}
		writeTree(t, filepath.Join(dir, fmt.Sprintf("generic%d", g)), gen)
	}
}

func train(t testing.TB, dir string) *ngram.Model {
	t.Helper()
	m, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{dir}, Include: []string{"*.java"}}, ngram.Options{Order: 6})
	must(t, err)
	return m
}

func serve(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/v1"
}

// DeadSpec is a model spec at a loopback port nothing listens on.
func DeadSpec(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	ln.Close()
	return "openai:seen-target@http://" + addr + "/v1"
}

func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte(c), 0o644))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
