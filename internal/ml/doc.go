// Package ml owns the small, deterministic binary classifiers used by the
// leakage-controlled detector evaluation of rxsynth §7: the isolated-method
// task (§7.3, scored by ROC-AUC over real methods) and the Δ-feature pair
// discrimination task (§7.4.5, a two-alternative forced choice scored in both
// orderings). Callers build the feature matrices (internal/metrics) and the
// provenance-disjoint folds (internal/synth/evaluate); this package only fits
// and predicts.
//
// Every model implements [Classifier]: Fit(ctx, X, y) with y ∈ {0, 1}, and
// PredictProba(X) returning P(y = 1 | x) per row. Fit rejects, by wrapping
// errs.ErrInput, empty data, ragged rows, len(X) ≠ len(y), labels other than
// 0/1, a single class, and NaN or ±Inf features; invalid hyper-parameters
// wrap errs.ErrUsage. A Fit that fails leaves the model unfitted.
// PredictProba never fails: a row whose width differs from the training
// width or that holds a NaN or ±Inf yields NaN, as does every row of an
// unfitted model. Nothing in the package panics on any input.
//
// Models, their defaults and the references they follow:
//
//   - [LogisticRegression]: L2-penalised log-loss with an unpenalised
//     intercept, minimising ½‖w‖² + C·Σᵢ log(1 + exp(−ỹᵢ(w·xᵢ + b))) exactly
//     as scikit-learn's LogisticRegression(penalty="l2", C=1.0) (same
//     minimiser for every solver); fitted by damped Newton's method
//     (Boyd & Vandenberghe 2004, §9.5; Cholesky from gonum/mat) to a
//     gradient max-norm of 1e-10 on the objective divided by C·n. Each
//     iteration costs O(n·d² + d³), fine for the tens of features of
//     rxsynth §6. Default C = 1.0, MaxIter = 100. FeatureImportance is |w|,
//     comparable only when the inputs are standardised (see [Standardizer]).
//   - [DecisionTree]: CART (Breiman et al. 1984) with the Gini criterion,
//     sample weights, MaxDepth (0 = unlimited), MinSamplesSplit = 2,
//     MinSamplesLeaf = 1 and MaxFeatures (0 = all). Leaves predict the
//     weighted fraction of class 1, as scikit-learn's
//     DecisionTreeClassifier.predict_proba does. Splits are searched over at
//     most MaxBins = 256 candidate thresholds per feature (see below).
//     FeatureImportance is the normalised weighted Gini decrease (MDI).
//   - [RandomForest]: Breiman (2001) — NTrees = 100 fully grown Gini trees,
//     each on a bootstrap sample of n rows (represented as integer sample
//     weights, as scikit-learn does), with MaxFeatures = ⌊√d⌋ features drawn
//     per split; probabilities are the mean of the trees' leaf fractions
//     (scikit-learn's RandomForestClassifier). Tree t draws from PCG(Seed, t),
//     so results do not depend on Workers. FeatureImportance is the mean of
//     the trees' normalised MDI.
//   - [GradientBoosting]: Friedman (2001) gradient boosting for binary
//     log-loss with second-order (Newton) trees as in XGBoost (Chen &
//     Guestrin 2016, eqs. 5–7): each depth-limited regression tree is grown
//     on gradients gᵢ = pᵢ − yᵢ and hessians hᵢ = pᵢ(1 − pᵢ), a split's gain
//     is ½[G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] and a leaf's value is
//     −G/(H+λ), shrunk by the learning rate. The initial score is the prior
//     log-odds. Defaults: NEstimators = 100, LearningRate = 0.1, MaxDepth =
//     3, Subsample = 1.0 (rows drawn without replacement per stage from
//     PCG(Seed, stage), Friedman 2002), Lambda = 1, MinChildWeight = 1e-3,
//     MinSamplesLeaf = 1. FeatureImportance is the normalised total gain.
//
// Split search. Trees bin each feature once per Fit into at most MaxBins
// ordered bins whose edges are midpoints between consecutive distinct
// values; with ≤ MaxBins distinct values (counts, small integers — most
// rxsynth §6 metrics) this is exactly CART's exhaustive midpoint search,
// and otherwise the edges sit at the midpoints around evenly spaced
// quantiles, as in LightGBM and scikit-learn's HistGradientBoosting. The
// threshold is the edge just above the largest left-hand training value
// (CART proper uses the midpoint of the node's two neighbouring values; the
// two agree on every training row). A node whose n·log₂n is below the bin
// count sorts its rows by bin instead of scanning a histogram, which keeps
// the many small nodes of fully grown forest trees cheap. Among equal
// gains the first candidate wins, in feature-visit order, then threshold
// order. A Gini node is split whenever a valid split exists, even at zero
// gain (scikit-learn does the same; it is what lets CART fit exact XOR);
// a Newton node needs a positive gain (XGBoost with γ = 0).
//
// Cost of one fit on 3,000 rows × 20 features (nonlinear synthetic data),
// measured as process CPU time with go test -run='^$' -bench=. -benchtime=3x
// ./internal/ml on a 2-core machine shared with other jobs (load ≈ 19, so
// wall times were 2–4× higher and are not quoted): LogisticRegression ≈ 6
// ms; one fully grown DecisionTree ≈ 20 ms; RandomForest{NTrees: 200} ≈
// 250–300 ms (trees grow on GOMAXPROCS goroutines); GradientBoosting
// {NEstimators: 200} ≈ 130 ms (≈ 120 ms with Subsample 0.8). Scoring 3,000
// rows with the 200-tree forest ≈ 150 ms. Five folds × three seeds × these
// three models is therefore ≈ 7 s of CPU.
package ml
