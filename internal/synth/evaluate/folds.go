package evaluate

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// foldStream is the PCG stream of the fold shuffle (the run seed is the
// PCG seed), fixed so fold files can be regenerated from run seeds.
const foldStream = 0xf01d

// FoldAssignment places one source bug (all of its seed pairs) in one
// fold for one run seed. Written one per line to folds.jsonl.
type FoldAssignment struct {
	RunSeed   uint64   `json:"run_seed"`
	Fold      int      `json:"fold"`
	SourceBug string   `json:"source_bug"`
	Exception string   `json:"exception"`
	BugIDs    []string `json:"bug_ids"`
}

// MakeFolds assigns source bugs to k folds (rxsynth §7.2). Source bugs are
// sorted by id and grouped into strata — by exception type when stratify
// is set (a source bug's type is the most frequent exception among its
// pairs, ties going to the earlier type of corpus.Types), else one stratum
// — then each stratum, in corpus.Types order, is shuffled with
// PCG(runSeed, foldStream) and dealt round-robin to the folds, the dealing
// position carrying over from one stratum to the next. The result depends
// only on the seeds, k, runSeed and stratify.
func MakeFolds(seeds []corpus.Seed, k int, runSeed uint64, stratify bool) ([]FoldAssignment, error) {
	bugs := map[string][]corpus.Seed{}
	for _, s := range seeds {
		bugs[s.SourceBug] = append(bugs[s.SourceBug], s)
	}
	if k < 2 || k > len(bugs) {
		return nil, fmt.Errorf("make folds: %w: %d folds for %d source bugs; need 2 ≤ folds ≤ source bugs", errs.ErrUsage, k, len(bugs))
	}
	ids := make([]string, 0, len(bugs))
	for id := range bugs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	strata := map[string][]string{}
	typeOf := map[string]string{}
	for _, id := range ids {
		best := majorityType(bugs[id])
		typeOf[id] = best
		key := ""
		if stratify {
			key = best
		}
		strata[key] = append(strata[key], id)
	}
	order := []string{""}
	if stratify {
		order = corpus.Types
	}
	r := rand.New(rand.NewPCG(runSeed, foldStream))
	var out []FoldAssignment
	pos := 0
	for _, key := range order {
		members := strata[key]
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		for _, id := range members {
			out = append(out, FoldAssignment{RunSeed: runSeed, Fold: pos % k, SourceBug: id, Exception: typeOf[id], BugIDs: sortedBugIDs(bugs[id])})
			pos++
		}
	}
	return out, nil
}

// majorityType is the exception type of most of a source bug's seeds;
// ties go to the earlier type in corpus.Types order.
func majorityType(seeds []corpus.Seed) string {
	count := map[string]int{}
	for _, s := range seeds {
		count[s.Exception]++
	}
	best := ""
	for _, t := range corpus.Types {
		if count[t] > count[best] {
			best = t
		}
	}
	return best
}

// sortedBugIDs are the seeds' bug_ids, sorted.
func sortedBugIDs(seeds []corpus.Seed) []string {
	var ids []string
	for _, s := range seeds {
		ids = append(ids, s.BugID)
	}
	slices.Sort(ids)
	return ids
}

// ProvenanceTable maps every identifier a pair may record in
// example_bug_ids to its source bug: each seed's bug_id, and each
// source_bug to itself (an id naming a whole source bug, the Lang-47
// case of §3.4). It is built from the seeds alone, never guessed.
type ProvenanceTable map[string]string

// NewProvenanceTable builds the table from seeds.
func NewProvenanceTable(seeds []corpus.Seed) ProvenanceTable {
	t := ProvenanceTable{}
	for _, s := range seeds {
		t[s.BugID] = s.SourceBug
		t[s.SourceBug] = s.SourceBug
	}
	return t
}

// SourceBugs maps a pair's example ids to source bugs. An id missing from
// the table is an error wrapping errs.ErrInput that names the pair and the
// id (§7.2: "an identifier that the table does not cover raises an error
// instead of passing through unmatched").
func (t ProvenanceTable) SourceBugs(p corpus.Pair) ([]string, error) {
	var out []string
	for _, id := range p.ExampleBugIDs {
		sb, ok := t[id]
		if !ok {
			return nil, fmt.Errorf("provenance of pair %s: %w: example id %q is not in the identifier → source-bug table (seed bug_ids and source_bugs); add the seed it names to --seeds or correct the pair", p.PairID, errs.ErrInput, id)
		}
		if !slices.Contains(out, sb) {
			out = append(out, sb)
		}
	}
	return out, nil
}

// Exclude returns the indices of the pairs that may train a model
// evaluated on the held-out source bugs: a pair is dropped when any of its
// mapped source bugs is held out. prov[i] is pair i's source bugs.
func Exclude(prov [][]string, heldOut map[string]bool) (keep []int, dropped int) {
	for i, sbs := range prov {
		leak := false
		for _, sb := range sbs {
			if heldOut[sb] {
				leak = true
				break
			}
		}
		if leak {
			dropped++
		} else {
			keep = append(keep, i)
		}
	}
	return keep, dropped
}
