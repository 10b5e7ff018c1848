package ml

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// goldenModel records what a seeded fit produces, rounded to 1e-9 so that
// the file pins the algorithms (split choice, bootstrap and subsample
// streams, Newton iterations) rather than the last floating-point bit.
type goldenModel struct {
	Model      string    `json:"model"`
	Proba      []float64 `json:"proba"`
	Importance []float64 `json:"importance"`
}

func round9(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Round(x*1e9) / 1e9
	}
	return out
}

// TestGoldenPredictions pins the seeded output of every model; a change
// in sampling, tie-breaking or defaults shows up here. Regenerate with
// go test ./internal/ml -run Golden -update, and say why in the commit.
func TestGoldenPredictions(t *testing.T) {
	X, y := nonlinear(21, 300, 5)
	Xt, _ := nonlinear(22, 12, 5)
	models := []struct {
		name string
		m    Classifier
	}{
		{"logistic C=1", &LogisticRegression{}},
		{"tree depth 4", &DecisionTree{MaxDepth: 4}},
		{"forest 25 trees seed 3", &RandomForest{NTrees: 25, Seed: 3}},
		{"boosting 40 stages subsample 0.8 seed 3", &GradientBoosting{NEstimators: 40, Subsample: 0.8, Seed: 3}},
	}
	var got []goldenModel
	for _, tc := range models {
		if err := tc.m.Fit(t.Context(), X, y); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got = append(got, goldenModel{
			Model:      tc.name,
			Proba:      round9(tc.m.PredictProba(Xt)),
			Importance: round9(tc.m.(Importancer).FeatureImportance()),
		})
	}
	path := filepath.Join("testdata", "models.golden.json")
	enc, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b := golden.Read(t, path, append(enc, '\n'))
	var want []goldenModel
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seeded model output changed (-%s +got):\n%s", path, diff)
	}
}
