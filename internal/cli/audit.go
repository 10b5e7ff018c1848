package cli

import (
	"github.com/spf13/cobra"
)

// newAuditCmd is the `benchforge audit` group; its subcommands are listed
// in Commands.
func newAuditCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "audit",
		Short: "Audit a bug-fixing benchmark for training-data contamination",
		Long: `audit decides per benchmark sample whether it is contaminated for a model
(benchchecker): the repository was in the training data (Stage I) and the
gold patch persisted in the repository at the model's training cutoff
(Stage II, 'audit patch'). 'audit eval' scores verdicts against labels.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
}
