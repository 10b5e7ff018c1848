package cli

import (
	"github.com/spf13/cobra"
)

func init() { register("audit", newAuditCmd) }

// auditSubcommands lists the constructors of `benchforge audit`'s
// subcommands. Each audit command file appends its constructor from its own
// init function (as audit_patch.go and audit_eval.go do), so Stage I and
// later commands are added without touching this file:
//
//	func init() { auditSubcommands = append(auditSubcommands, newAuditRepoCmd) }
//
// Order does not matter; cobra sorts subcommands by name.
var auditSubcommands []func(*app) *cobra.Command

func newAuditCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Audit a bug-fixing benchmark for training-data contamination",
		Long: `audit decides per benchmark sample whether it is contaminated for a model
(benchchecker): the repository was in the training data (Stage I) and the
gold patch persisted in the repository at the model's training cutoff
(Stage II, 'audit patch'). 'audit eval' scores verdicts against labels.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	for _, ctor := range auditSubcommands {
		cmd.AddCommand(ctor(a))
	}
	return cmd
}
