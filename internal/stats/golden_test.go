package stats

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestResultsJSONGolden pins the JSON encoding (field names are the
// contract with reports and --json output) and the values of every result
// type on fixed inputs. Run with -update after an intended change and
// review the diff; the values themselves are checked against independent
// references in the other tests.
func TestResultsJSONGolden(t *testing.T) {
	must := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	scores := []float64{0.9, 0.8, 0.8, 0.3, 0.1}
	labels := []bool{true, false, true, false, true}
	pairs := []int{0, 0, 1, 1, 2, 2, 3, 3}
	acc := []float64{1, 1, 1, 0, 0, 1, 1, 1}
	got := map[string]any{
		"ks_exact":      must(KS2(hwX, hwY, KSAuto)),
		"ks_asymptotic": must(KS2(hwX, hwY, KSAsymptotic)),
		"mwu_exact":     must(MannWhitney(hwX, hwY, Greater, MWUAuto)),
		"mwu_normal":    must(MannWhitney(hwX, hwY, TwoSided, MWUNormal)),
		"cliff":         must(CliffsDelta(hwX, hwY)),
		"binom":         must(BinomTest(682, 925, 0.75, TwoSided)),
		"wilson":        must(Wilson(12, 170, 0.95)),
		"wilson_cc":     must(WilsonCC(12, 170, 0.95)),
		"kappa":         must(CohensKappa([]string{"a", "a", "b", "b", "c"}, []string{"a", "b", "b", "b", "c"}, 0.95)),
		"mean_ci":       must(MeanCI([]float64{70.1, 71.9, 69.0, 70.6, 70.4}, 0.95)),
		"describe":      must(Describe(hwX)),
		"roc":           must(ROC(scores, labels)),
		"youden":        must(Youden(scores, labels)),
		"ecdf":          must(ECDF([]float64{3, 1, 3, 2})),
		"cluster_bootstrap": must(ClusterBootstrap(context.Background(), idxs(len(pairs)),
			func(i int) int { return pairs[i] },
			func(ix []int) float64 {
				s := 0.0
				for _, i := range ix {
					s += acc[i]
				}
				return s / float64(len(ix))
			}, BootstrapOptions{B: 200, Conf: 0.95, Seed: 1})),
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "results.golden.json")
	want := golden.Read(t, path, append(b, '\n'))
	// Compare decoded JSON with a relative tolerance of 1e-12 so that a
	// last-digit difference (e.g. fused multiply-add on arm64) is not a
	// failure, while every field name and structure must match exactly.
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(w, g, cmpopts.EquateApprox(1e-12, 0)); d != "" {
		t.Errorf("results JSON differs from %s (-want +got):\n%s", path, d)
	}
}

func idxs(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
