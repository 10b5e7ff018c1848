package evaluate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// HFIsolated is one row of an exported isolated-method split: the method
// text and label 1 for the defective (buggy) method, 0 for the repair.
type HFIsolated struct {
	ID        string `json:"id"` // pair_id or bug_id, then ":buggy" / ":fixed"
	BugID     string `json:"bug_id,omitempty"`
	Side      string `json:"side"`
	Text      string `json:"text"`
	Label     int    `json:"label"`
	Exception string `json:"exception"`
}

// HFPair is one row of an exported pair split: label 1 when method_a is
// the defective one. Both orderings of every pair are written.
type HFPair struct {
	ID        string `json:"id"` // pair_id or bug_id, then ":buggy-first" / ":fixed-first"
	BugID     string `json:"bug_id,omitempty"`
	Order     string `json:"order"`
	MethodA   string `json:"method_a"`
	MethodB   string `json:"method_b"`
	Label     int    `json:"label"`
	Exception string `json:"exception"`
}

// ExportHF writes the folds as Hugging Face `datasets`-loadable JSON Lines
// (load_dataset("json", data_files={"train": ..., "test": ...})):
//
//	DIR/{isolated,pair}/seed<S>-fold<F>/train.jsonl  synthetic pairs left after provenance exclusion
//	DIR/{isolated,pair}/seed<S>-fold<F>/test.jsonl   the fold's real pairs
//	DIR/README.md                                    dataset card with the layout and the prediction format
//
// Test rows carry bug_id with side or order, which is what
// ImportPredictions needs back (add model and score). Pairs with an
// unmapped example id are an error, as in Run.
func ExportHF(dir string, pairs []corpus.Pair, seeds []corpus.Seed, folds []FoldAssignment) error {
	table := NewProvenanceTable(seeds)
	prov := make([][]string, len(pairs))
	for i, p := range pairs {
		sbs, err := table.SourceBugs(p)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		prov[i] = sbs
	}
	held, order := heldOutByFold(folds)
	for _, k := range order {
		keep, _ := Exclude(prov, held[k])
		if err := exportFold(dir, k, keep, pairs, seeds, held[k]); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(datasetCard(order[0].seed, order[0].fold)), 0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// foldKey is one fold of one run seed.
type foldKey struct {
	seed uint64
	fold int
}

// heldOutByFold is each fold's held-out source bugs, with the folds in
// order of first appearance.
func heldOutByFold(folds []FoldAssignment) (map[foldKey]map[string]bool, []foldKey) {
	held := map[foldKey]map[string]bool{}
	var order []foldKey
	for _, a := range folds {
		k := foldKey{a.RunSeed, a.Fold}
		if held[k] == nil {
			held[k] = map[string]bool{}
			order = append(order, k)
		}
		held[k][a.SourceBug] = true
	}
	return held, order
}

// exportFold writes fold k's train (the kept pairs) and test (the seeds
// of its held-out source bugs) files for both tasks.
func exportFold(dir string, k foldKey, keep []int, pairs []corpus.Pair, seeds []corpus.Seed, held map[string]bool) error {
	var isoTrain, isoTest []HFIsolated
	var pairTrain, pairTest []HFPair
	for _, i := range keep {
		p := pairs[i]
		isoTrain = append(isoTrain, isoRows(p.PairID, "", p.BuggyMethod, p.FixedMethod, p.ErrorType)...)
		pairTrain = append(pairTrain, pairRows(p.PairID, "", p.BuggyMethod, p.FixedMethod, p.ErrorType)...)
	}
	for _, s := range seeds {
		if held[s.SourceBug] {
			isoTest = append(isoTest, isoRows(s.BugID, s.BugID, s.BuggyMethod, s.FixedMethod, s.Exception)...)
			pairTest = append(pairTest, pairRows(s.BugID, s.BugID, s.BuggyMethod, s.FixedMethod, s.Exception)...)
		}
	}
	sub := fmt.Sprintf("seed%d-fold%d", k.seed, k.fold)
	if err := writeSplit(filepath.Join(dir, Isolated, sub), isoTrain, isoTest); err != nil {
		return err
	}
	return writeSplit(filepath.Join(dir, PairTask, sub), pairTrain, pairTest)
}

// writeSplit writes a fold directory's train.jsonl and test.jsonl.
func writeSplit[T any](d string, train, test []T) error {
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := jsonl.Rewrite(filepath.Join(d, "train.jsonl"), train); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := jsonl.Rewrite(filepath.Join(d, "test.jsonl"), test); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

func isoRows(id, bugID, buggy, fixed, typ string) []HFIsolated {
	return []HFIsolated{
		{ID: id + ":buggy", BugID: bugID, Side: "buggy", Text: buggy, Label: 1, Exception: typ},
		{ID: id + ":fixed", BugID: bugID, Side: "fixed", Text: fixed, Label: 0, Exception: typ},
	}
}

func pairRows(id, bugID, buggy, fixed, typ string) []HFPair {
	return []HFPair{
		{ID: id + ":" + BuggyFirst, BugID: bugID, Order: BuggyFirst, MethodA: buggy, MethodB: fixed, Label: 1, Exception: typ},
		{ID: id + ":" + FixedFirst, BugID: bugID, Order: FixedFirst, MethodA: fixed, MethodB: buggy, Label: 0, Exception: typ},
	}
}

func datasetCard(seed uint64, fold int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# benchforge leakage-controlled folds (rxsynth §7.2)

Each directory isolated/seed<S>-fold<F>/ and pair/seed<S>-fold<F>/ is one
fold of one run seed: train.jsonl holds the synthetic pairs left after
provenance exclusion (no descendant of a held-out source bug), test.jsonl
the fold's real pairs. Load one with

    from datasets import load_dataset
    ds = load_dataset("json", data_files={"train": "isolated/seed%[1]d-fold%[2]d/train.jsonl",
                                          "test": "isolated/seed%[1]d-fold%[2]d/test.jsonl"})

isolated rows: id, bug_id (test only), side (buggy|fixed), text, label (1 = defective), exception.
pair rows: id, bug_id (test only), order (buggy-first|fixed-first), method_a, method_b,
label (1 = method_a is defective), exception. Both orderings of every pair are present.

To analyse predictions with benchforge, write one JSON line per test row:

    {"task": "isolated", "model": "codebert", "run_seed": %[1]d, "fold": %[2]d, "bug_id": "...", "side": "buggy", "score": 0.83}
    {"task": "pair", "model": "codebert", "run_seed": %[1]d, "fold": %[2]d, "bug_id": "...", "order": "fixed-first", "score": 0.12}

score is P(defective) for isolated rows and P(method_a is defective) for pair rows;
then run: benchforge synth evaluate --seeds seeds.jsonl --predictions FILE --out DIR
`, seed, fold)
	return b.String()
}
