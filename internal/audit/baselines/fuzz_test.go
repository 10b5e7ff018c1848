package baselines

import (
	"math"
	"strings"
	"testing"
)

// FuzzPatchText checks that any patch text yields added lines drawn from
// the input, and that the scores of any log-probability vector are finite
// or rejected, with Min-K% never above the mean log-probability.
func FuzzPatchText(f *testing.F) {
	f.Add("diff --git a/A.java b/A.java\n--- a/A.java\n+++ b/A.java\n@@ -1 +1 @@\n-x\n+y\n", 0.2)
	f.Add("--- a\n+++ b\n@@ -1,0 +1 @@\n+", 1.0)
	f.Fuzz(func(t *testing.T, patch string, k float64) {
		out := PatchText(patch)
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l != "" && !strings.Contains(patch, l) {
				t.Fatalf("PatchText produced %q, not in the input", l)
			}
		}
		lps := make([]float64, 0, len(patch))
		for _, b := range []byte(patch) {
			lps = append(lps, -float64(b)/10)
		}
		sc, err := FromLogprobs(patch, lps, k)
		if err != nil {
			if len(lps) > 0 {
				t.Fatalf("FromLogprobs: %v", err)
			}
			return
		}
		if math.IsNaN(sc.Loss) || math.IsNaN(sc.MinK) || math.IsNaN(sc.Zlib) || sc.MinK > -sc.Loss+1e-9 {
			t.Fatalf("scores %+v", sc)
		}
	})
}
