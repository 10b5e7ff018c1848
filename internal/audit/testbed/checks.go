package testbed

import (
	"fmt"
	"math"
)

// checks measures the targets of the issue on the headline capacity (the
// first): full-method AUC and FPR, the ablations' direction, the best
// baseline below the method, sequential calls, and calibration; the wall
// time is checked by Run.
func checks(r *Result) []Check {
	if len(r.Capacities) == 0 {
		return nil
	}
	capName := r.Capacities[0].Name
	full := r.row(capName, ConfigFull)
	out := []Check{{
		Name: "full method", Target: "AUC ≥ 0.95 and FPR ≤ 0.05 at α = 0.05",
		Measured: fmt.Sprintf("AUC %.3f (seeds %.3f–%.3f), FPR %.3f, TPR %.3f", full.AUCMean, full.AUCMin, full.AUCMax, full.FPR, full.TPR),
		Pass:     full.AUCMean >= 0.95 && full.FPR <= 0.05,
	}}
	for _, cfg := range []string{ConfigNoRepetitive, ConfigNoDistinct, ConfigNoContext} {
		a := r.row(capName, cfg)
		dAUC, dFPR := full.AUCMean-a.AUCMean, a.FPR-full.FPR
		out = append(out, Check{Name: cfg, Target: "AUC lower by ≥ 0.1 or FPR higher by ≥ 0.2",
			Measured: fmt.Sprintf("AUC %.3f (%+.3f), FPR %.3f (%+.3f)", a.AUCMean, -dAUC, a.FPR, dFPR),
			Pass:     dAUC >= 0.1 || dFPR >= 0.2})
	}
	out = append(out, r.baselineCheck(capName, full))
	for _, s := range r.Sequential {
		if s.Capacity != capName {
			continue
		}
		out = append(out, Check{Name: "sequential stopping", Target: "≤ half the fixed-n calls at equal AUC",
			Measured: fmt.Sprintf("%d of %d calls (%.1f%%), AUC %.3f vs %.3f, %d/%d verdicts equal", s.SeqCalls, s.FixedCalls, 100*s.Fraction, s.SeqAUC, s.FixedAUC, s.SameVerdicts, s.TotalVerdicts),
			Pass:     s.Fraction <= 0.5 && math.Abs(s.SeqAUC-s.FixedAUC) <= 0.01})
	}
	for _, c := range r.Calibration {
		if c.Capacity == capName && c.Config == ConfigFull {
			out = append(out, Check{Name: fmt.Sprintf("calibration at %g", c.Level), Target: fmt.Sprintf("share of non-members with p ≤ %g at most %g", c.Level, c.Level),
				Measured: fmt.Sprintf("%d/%d = %.3f [95%% CI %.3f–%.3f]", c.Rejected, c.NonMembers, c.Share, c.CI.Lo, c.CI.Hi), Pass: c.Share <= c.Level})
		}
	}
	return out
}

// row is the pooled row of one capacity and configuration (zero when
// absent).
func (r *Result) row(capName, cfg string) Row {
	for _, x := range r.Table {
		if x.Capacity == capName && x.Config == cfg {
			return x
		}
	}
	return Row{}
}

// baselineCheck compares the best logit baseline with the full method.
// The oracle Ref (a reference that never read the repository) is not a
// baseline an auditor can run; it is named in the measured text, not
// compared.
func (r *Result) baselineCheck(capName string, full Row) Check {
	best, oracle := BaselineRow{AUCMean: math.Inf(-1)}, ""
	for _, b := range r.Baselines {
		switch {
		case b.Capacity != capName:
		case b.Method == MethodRefCrossfit:
			oracle = fmt.Sprintf("; %s (oracle reference) AUC %.3f", b.Method, b.AUCMean)
		case b.AUCMean > best.AUCMean:
			best = b
		}
	}
	return Check{Name: "best logit baseline", Target: "AUC below the full method's",
		Measured: fmt.Sprintf("%s AUC %.3f vs %.3f%s", best.Method, best.AUCMean, full.AUCMean, oracle), Pass: best.AUCMean < full.AUCMean}
}
