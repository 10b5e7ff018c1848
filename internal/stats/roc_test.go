package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/google/go-cmp/cmp"
)

func TestROCHand(t *testing.T) {
	// Scores 0.9 (P), 0.8 (N), 0.8 (P), 0.3 (N). By hand:
	// ≥0.9: TP 1/2, FP 0; ≥0.8: TP 2/2, FP 1/2; ≥0.3: 1, 1.
	scores := []float64{0.9, 0.8, 0.8, 0.3}
	labels := []bool{true, false, true, false}
	pts, err := ROC(scores, labels)
	if err != nil {
		t.Fatal(err)
	}
	want := []ROCPoint{{math.Inf(1), 0, 0}, {0.9, 0, 0.5}, {0.8, 0.5, 1}, {0.3, 1, 1}}
	if d := cmp.Diff(want, pts); d != "" {
		t.Errorf("ROC (-want +got):\n%s", d)
	}
	// AUC by hand: P0.9 beats both N; P0.8 ties N0.8 (½) and beats N0.3:
	// (3 + ½)/4 = 0.875.
	auc, err := AUC(scores, labels)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "AUC", auc, 0.875, 1e-15)
	checkRatesAt(t, scores, labels, 0.85, 0.5, 0)
	// Youden J: 0, 0.5, 0.5, 0 → first (highest threshold) maximiser 0.9.
	checkYoudenThreshold(t, scores, labels, 0.9)
	b, err := json.Marshal(pts[:2])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `[{"threshold":null,"fpr":0,"tpr":0},{"threshold":0.9,"fpr":0,"tpr":0.5}]` {
		t.Errorf("JSON = %s", got)
	}
}

// TestROCProperties: on random scores with ties, AUC equals the
// trapezoidal area of the ROC curve and U/(n₁n₀) from MannWhitney; every
// ROC point equals RatesAt at its threshold; Youden equals the brute-force
// maximum of TPR − FPR over all candidate thresholds.
func TestROCProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for trial := range 100 {
		scores, labels := randROCSample(r)
		pts, err := ROC(scores, labels)
		if err != nil {
			t.Fatal(err)
		}
		auc, err := AUC(scores, labels)
		if err != nil {
			t.Fatal(err)
		}
		pos, neg := byLabel(scores, labels)
		u, _ := MannWhitney(pos, neg, TwoSided, MWUNormal)
		assertNear(t, "AUC vs trapezoid", auc, trapezoid(pts), 1e-12)
		assertNear(t, "AUC vs U/(n1 n0)", auc, u.U/float64(len(pos)*len(neg)), 1e-12)
		best := checkPointsMatchRatesAt(t, trial, scores, labels, pts)
		y, _ := Youden(scores, labels)
		if y.TPR-y.FPR != math.Max(0, best) {
			t.Errorf("trial %d: Youden %+v J=%v, brute max %v", trial, y, y.TPR-y.FPR, best)
		}
		last := pts[len(pts)-1]
		if last.FPR != 1 || last.TPR != 1 {
			t.Errorf("curve ends at %+v", last)
		}
	}
}

// randROCSample draws 2..61 tied integer scores, positives shifted up,
// with at least one label of each kind.
func randROCSample(r *rand.Rand) ([]float64, []bool) {
	n := 2 + r.IntN(60)
	scores := make([]float64, n)
	labels := make([]bool, n)
	for i := range scores {
		labels[i] = r.IntN(2) == 0
		scores[i] = float64(r.IntN(8))
		if labels[i] {
			scores[i] += float64(r.IntN(3))
		}
	}
	labels[0], labels[1] = true, false
	return scores, labels
}

// trapezoid is the trapezoidal area under the ROC curve.
func trapezoid(pts []ROCPoint) float64 {
	var area float64
	for i := 1; i < len(pts); i++ {
		area += (pts[i].FPR - pts[i-1].FPR) * (pts[i].TPR + pts[i-1].TPR) / 2
	}
	return area
}

func byLabel(scores []float64, labels []bool) (pos, neg []float64) {
	for i, s := range scores {
		if labels[i] {
			pos = append(pos, s)
		} else {
			neg = append(neg, s)
		}
	}
	return pos, neg
}

// checkPointsMatchRatesAt checks every ROC point after the first against
// RatesAt at its threshold and returns the largest TPR − FPR seen.
func checkPointsMatchRatesAt(t *testing.T, trial int, scores []float64, labels []bool, pts []ROCPoint) float64 {
	t.Helper()
	best := math.Inf(-1)
	for _, p := range pts[1:] {
		tpr, fpr, _ := RatesAt(scores, labels, p.Threshold)
		if tpr != p.TPR || fpr != p.FPR {
			t.Errorf("trial %d: point %+v, RatesAt %v %v", trial, p, tpr, fpr)
		}
		best = math.Max(best, tpr-fpr)
	}
	return best
}

func checkRatesAt(t *testing.T, scores []float64, labels []bool, thr, wantTPR, wantFPR float64) {
	t.Helper()
	tpr, fpr, err := RatesAt(scores, labels, thr)
	if err != nil || tpr != wantTPR || fpr != wantFPR {
		t.Errorf("RatesAt(%v) = %v, %v, %v", thr, tpr, fpr, err)
	}
}

func checkYoudenThreshold(t *testing.T, scores []float64, labels []bool, want float64) {
	t.Helper()
	y, err := Youden(scores, labels)
	if err != nil || y.Threshold != want {
		t.Errorf("Youden = %+v, %v", y, err)
	}
}

func TestROCErrors(t *testing.T) {
	cases := []struct {
		s []float64
		l []bool
	}{
		{nil, nil},
		{[]float64{1, 2}, []bool{true}},
		{[]float64{1, 2}, []bool{true, true}},
		{[]float64{1, math.NaN()}, []bool{true, false}},
		{[]float64{1, math.Inf(1)}, []bool{true, false}},
	}
	for _, c := range cases {
		_, err := ROC(c.s, c.l)
		assertErrIs(t, err, errs.ErrInput)
		_, err = AUC(c.s, c.l)
		assertErrIs(t, err, errs.ErrInput)
		_, err = Youden(c.s, c.l)
		assertErrIs(t, err, errs.ErrInput)
	}
	_, _, err := RatesAt([]float64{1, 2}, []bool{true, false}, math.NaN())
	assertErrIs(t, err, errs.ErrInput)
}

func TestECDF(t *testing.T) {
	// {3, 1, 3, 2}: F(1) = 1/4, F(2) = 2/4, F(3) = 4/4 (hand).
	got, err := ECDF([]float64{3, 1, 3, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []ECDFPoint{{1, 0.25}, {2, 0.5}, {3, 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ECDF (-want +got):\n%s", d)
	}
	_, err = ECDF(nil)
	assertErrIs(t, err, errs.ErrInput)
	_, err = ECDF([]float64{math.NaN()})
	assertErrIs(t, err, errs.ErrInput)
}

// TestBestAtFPR: on the hand curve of TestROCHand, the best point within
// each FPR bound, by hand.
func TestBestAtFPR(t *testing.T) {
	pts, err := ROC([]float64{0.9, 0.8, 0.8, 0.3}, []bool{true, false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max  float64
		want ROCPoint
	}{
		{0, ROCPoint{0.9, 0, 0.5}},    // ≥0.8 already calls one N positive
		{0.49, ROCPoint{0.9, 0, 0.5}}, // still short of ≥0.8's FPR 0.5
		{0.5, ROCPoint{0.8, 0.5, 1}},
		{1, ROCPoint{0.8, 0.5, 1}}, // ≥0.3 has TPR 1 too, at a lower threshold
	} {
		if got := BestAtFPR(pts, c.max); got != c.want {
			t.Errorf("BestAtFPR(%.2f) = %+v, want %+v", c.max, got, c.want)
		}
	}
	// All negatives outrank the positives: only the +Inf point qualifies.
	pts, err = ROC([]float64{0.1, 0.9}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	if got := BestAtFPR(pts, 0.05); !math.IsInf(got.Threshold, 1) || got.TPR != 0 {
		t.Errorf("BestAtFPR = %+v, want the +Inf point", got)
	}
}
