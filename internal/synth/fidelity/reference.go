package fidelity

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Reference describes the fidelity reference set (rxsynth §3.4): the seeds
// the corpus is compared with, and which seeds were left out and why.
type Reference struct {
	// Rule is "upper-tail" (the default rule below) or "file" (a list of
	// seed bug_ids given with --reference-set).
	Rule string `json:"rule"`
	// Definition states the rule in words, for the report.
	Definition string `json:"definition"`
	N          int    `json:"n"`
	// Excluded lists the seeds outside the reference set.
	Excluded []Exclusion `json:"excluded"`
}

// Exclusion is one seed outside the reference set. Fence is the LLOC
// threshold it exceeded under the upper-tail rule (0 with Rule "file").
type Exclusion struct {
	BugID     string  `json:"bug_id"`
	Exception string  `json:"exception"`
	LLOC      int     `json:"lloc"`
	Fence     float64 `json:"fence,omitempty"`
}

// UpperTailDefinition is the documented default reference-set rule.
const UpperTailDefinition = "within each exception type, a seed is excluded when its buggy method's LLOC exceeds Q3 + 1.5·IQR of that type's seed LLOCs (type-7 quartiles; Tukey's upper fence); rxsynth §3.4 applies a per-type upper-tail exclusion without stating the threshold, this is ours"

// referenceSet returns in[i] = whether seed i is in the reference set. lloc
// holds each seed's buggy LLOC (−1 when the method could not be measured;
// such seeds are never in the set). ids, when non-nil, lists the reference
// bug_ids explicitly; an id that names no seed is an error.
func referenceSet(seeds []corpus.Seed, lloc []int, ids []string) ([]bool, Reference, error) {
	if ids != nil {
		return listedReference(seeds, lloc, ids)
	}
	in := make([]bool, len(seeds))
	ref := Reference{Rule: "upper-tail", Definition: UpperTailDefinition}
	for _, typ := range corpus.Types {
		if err := upperTail(seeds, lloc, typ, in, &ref); err != nil {
			return nil, ref, err
		}
	}
	slices.SortFunc(ref.Excluded, func(a, b Exclusion) int {
		if c := slices.Index(corpus.Types, a.Exception) - slices.Index(corpus.Types, b.Exception); c != 0 {
			return c
		}
		if a.LLOC != b.LLOC {
			return b.LLOC - a.LLOC
		}
		return compareStrings(a.BugID, b.BugID)
	})
	return in, ref, nil
}

// listedReference is the reference set of the seeds whose bug_ids are
// listed (and measured).
func listedReference(seeds []corpus.Seed, lloc []int, ids []string) ([]bool, Reference, error) {
	in := make([]bool, len(seeds))
	ref := Reference{Rule: "file", Definition: "the seeds whose bug_id is listed in the --reference-set file"}
	index := make(map[string]int, len(seeds))
	for i, s := range seeds {
		index[s.BugID] = i
	}
	for _, id := range ids {
		i, ok := index[id]
		if !ok {
			return nil, ref, fmt.Errorf("reference set: %w: bug_id %q is not in the seeds; list seed bug_ids only", errs.ErrInput, id)
		}
		in[i] = lloc[i] >= 0
	}
	for i, s := range seeds {
		if !in[i] {
			ref.Excluded = append(ref.Excluded, Exclusion{BugID: s.BugID, Exception: s.Exception, LLOC: lloc[i]})
		} else {
			ref.N++
		}
	}
	return in, ref, nil
}

// upperTail applies the upper-tail rule to the measured seeds of type
// typ: those within Tukey's upper fence join the set (in), the others are
// excluded in ref.
func upperTail(seeds []corpus.Seed, lloc []int, typ string, in []bool, ref *Reference) error {
	var xs []float64
	for i, s := range seeds {
		if s.Exception == typ && lloc[i] >= 0 {
			xs = append(xs, float64(lloc[i]))
		}
	}
	if len(xs) == 0 {
		return nil
	}
	q, err := stats.Quantiles(xs, 0.25, 0.75)
	if err != nil {
		return fmt.Errorf("reference set %s: %w", typ, err)
	}
	fence := q[1] + 1.5*(q[1]-q[0])
	for i, s := range seeds {
		if s.Exception != typ || lloc[i] < 0 {
			continue
		}
		if float64(lloc[i]) > fence {
			ref.Excluded = append(ref.Excluded, Exclusion{BugID: s.BugID, Exception: typ, LLOC: lloc[i], Fence: fence})
		} else {
			in[i] = true
			ref.N++
		}
	}
	return nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ParseReferenceSet reads a --reference-set file: one seed bug_id per
// line; blank lines and lines starting with # are ignored, surrounding
// space is trimmed. A line starting with "{" is a record of the file
// `seeds extract --reference-set` writes ({"bug_id", "in_reference", …}):
// its bug_id is listed when in_reference is true. A repeated id is an
// error naming both lines, as is an empty list.
func ParseReferenceSet(name string, r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	seen := map[string]int{}
	var ids []string
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if strings.HasPrefix(s, "{") {
			id, in, err := referenceRecord(s)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if !in {
				continue
			}
			s = id
		}
		if prev, dup := seen[s]; dup {
			return nil, fmt.Errorf("%s:%d: %w: bug_id %q already listed on line %d", name, line, errs.ErrInput, s, prev)
		}
		seen[s] = line
		ids = append(ids, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w: %w", name, line+1, errs.ErrInput, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: %w: no bug_ids listed (one per line)", name, errs.ErrInput)
	}
	return ids, nil
}

// referenceRecord reads one line of the reference-set file `seeds extract
// --reference-set` writes: a JSON record naming a seed (bug_id) and
// whether the upper-tail rule keeps it (in_reference).
func referenceRecord(s string) (id string, in bool, err error) {
	var rec struct {
		BugID       string `json:"bug_id"`
		InReference *bool  `json:"in_reference"`
	}
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return "", false, fmt.Errorf("%w: not a bug_id and not a JSON record: %v", errs.ErrInput, err)
	}
	if id := rec.BugID; id == "" || id != strings.TrimSpace(id) || strings.HasPrefix(id, "#") || rec.InReference == nil {
		return "", false, fmt.Errorf("%w: a JSON line needs a bug_id (no surrounding space, no leading #) and in_reference, as seeds extract --reference-set writes them", errs.ErrInput)
	}
	return rec.BugID, *rec.InReference, nil
}

// ReferenceSeeds returns the seeds of the fidelity reference set — the
// ones Run compares a corpus with — measured exactly as Run measures them:
// under the upper-tail rule when ids is nil, else those listed. The
// grounded mutation generator samples host methods against this set, so a
// corpus it grows is judged by the same seeds it was drawn to follow.
func ReferenceSeeds(seeds []corpus.Seed, ids []string) ([]corpus.Seed, Reference, error) {
	lloc := make([]int, len(seeds))
	for i, s := range seeds {
		lloc[i] = -1
		if m, err := Measure(s.BuggyMethod); err == nil {
			lloc[i] = m.Metrics.LLOC
		}
	}
	in, ref, err := referenceSet(seeds, lloc, ids)
	if err != nil {
		return nil, ref, err
	}
	var out []corpus.Seed
	for i, s := range seeds {
		if in[i] {
			out = append(out, s)
		}
	}
	return out, ref, nil
}
