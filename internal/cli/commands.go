package cli

import "github.com/spf13/cobra"

// Command is one command of benchforge's tree: its constructor, and the
// commands added under it once built. A command that owns a fixed set of
// subcommands in its own file (lm serve, seeds extract) adds them itself.
type Command struct {
	New func(*app) *cobra.Command
	Sub []Command
}

// Commands is benchforge's command tree, the one list of its commands:
// main passes it to Run, and the tests walk it (every command documented,
// reachable and with help). Order does not matter; cobra sorts by name.
func Commands() []Command {
	return []Command{
		{New: newAuditCmd, Sub: []Command{
			{New: newAuditEvalCmd},
			{New: newAuditPatchCmd},
			{New: newAuditRescoreCmd},
			{New: newAuditRunCmd},
			{New: newAuditTestbedCmd},
		}},
		{New: newDemoCmd},
		{New: newDiffCmd},
		{New: newDocsCmd},
		{New: newIndexCmd},
		{New: newLLMCmd},
		{New: newLMCmd},
		{New: newMetricsCmd},
		{New: newReportCmd},
		{New: newSeedsCmd},
		{New: newSynthCmd, Sub: []Command{
			{New: newSynthAgreeCmd},
			{New: newSynthEvaluateCmd},
			{New: newSynthFidelityCmd},
			{New: newSynthGateCmd},
			{New: newSynthGenerateCmd},
			{New: newSynthReleaseCmd},
			{New: newSynthScreenCmd},
			{New: newSynthValidateCmd},
			{New: newSynthVerifyCmd},
		}},
		{New: newVersionCmd},
	}
}

// build constructs c and, under it, its subcommands.
func (c Command) build(a *app) *cobra.Command {
	cmd := c.New(a)
	for _, s := range c.Sub {
		cmd.AddCommand(s.build(a))
	}
	return cmd
}
