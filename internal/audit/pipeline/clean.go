package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
)

// CleanStats describe clean.jsonl.
type CleanStats struct {
	// Format is "original" (the input's own JSONL lines) or "sample" (the
	// generic Sample JSONL of internal/bench, for directory inputs).
	Format  string `json:"format"`
	Kept    int    `json:"kept"`
	Dropped int    `json:"dropped"`
	// Unjudged counts input lines kept that were not loaded as samples
	// (invalid records, reported as problems).
	Unjudged int    `json:"unjudged,omitempty"`
	Note     string `json:"note,omitempty"`
}

// WriteClean writes the benchmark minus the contaminated samples to out.
// For a JSONL benchmark file every original line is kept byte for byte
// unless its record's id (instance_id, id, or Multi-SWE-bench's
// org__repo-number) is contaminated, so the result loads exactly as the
// input does. For a directory (Defects4J) the kept samples are written as
// generic Sample JSONL.
func WriteClean(benchmark string, samples []bench.Sample, contaminated map[string]bool, out string) (CleanStats, error) {
	st, err := os.Stat(benchmark)
	if err != nil {
		return CleanStats{}, fmt.Errorf("write clean subset: %w", err)
	}
	if st.IsDir() {
		return writeCleanSamples(benchmark, samples, contaminated, out)
	}
	data, err := os.ReadFile(benchmark)
	if err != nil {
		return CleanStats{}, fmt.Errorf("write clean subset: %w", err)
	}
	loaded := map[string]bool{}
	for _, s := range samples {
		loaded[s.ID] = true
	}
	cs, kept, err := cleanLines(data, loaded, contaminated)
	if err != nil {
		return CleanStats{}, fmt.Errorf("write clean subset: read %s: %w", benchmark, err)
	}
	if cs.Unjudged > 0 {
		cs.Note = fmt.Sprintf("clean.jsonl keeps %d input lines that were not valid samples (see problems)", cs.Unjudged)
	}
	return cs, output.WriteFile(out, kept)
}

// writeCleanSamples writes the samples of a directory benchmark that are
// not contaminated as generic Sample JSONL.
func writeCleanSamples(benchmark string, samples []bench.Sample, contaminated map[string]bool, out string) (CleanStats, error) {
	cs := CleanStats{Format: "sample",
		Note: fmt.Sprintf("%s is a directory: clean.jsonl holds generic Sample JSONL (load it with --format jsonl), not the directory layout", benchmark)}
	var kept []bench.Sample
	for _, s := range samples {
		if contaminated[s.ID] {
			cs.Dropped++
		} else {
			kept = append(kept, s)
		}
	}
	cs.Kept = len(kept)
	return cs, jsonl.Rewrite(out, kept)
}

// cleanLines returns the non-blank lines of a JSONL benchmark whose
// record is not contaminated, byte for byte, counting the kept lines that
// were not loaded as samples (loaded) as unjudged.
func cleanLines(data []byte, loaded, contaminated map[string]bool) (CleanStats, []byte, error) {
	cs := CleanStats{Format: "original"}
	var buf bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		id := recordID(line)
		if contaminated[id] {
			cs.Dropped++
			continue
		}
		if !loaded[id] {
			cs.Unjudged++
		}
		cs.Kept++
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return cs, buf.Bytes(), sc.Err()
}

// recordID is the sample id of one benchmark JSONL line, as internal/bench
// derives it; "" when the line is not a JSON object.
func recordID(line []byte) string {
	var r struct {
		InstanceID string          `json:"instance_id"`
		ID         string          `json:"id"`
		Org        string          `json:"org"`
		Repo       string          `json:"repo"`
		Number     json.RawMessage `json:"number"`
	}
	if json.Unmarshal(line, &r) != nil {
		return ""
	}
	switch {
	case r.InstanceID != "":
		return r.InstanceID
	case r.ID != "":
		return r.ID
	case r.Org != "" && r.Repo != "" && len(r.Number) > 0:
		var n int
		if json.Unmarshal(r.Number, &n) == nil {
			return fmt.Sprintf("%s__%s-%d", r.Org, r.Repo, n)
		}
	}
	return ""
}
