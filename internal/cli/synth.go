package cli

import "github.com/spf13/cobra"

// newSynthCmd is the `benchforge synth` group; its subcommands are listed
// in Commands.
func newSynthCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "synth",
		Short: "Synthetic bug/fix corpora: generate, validate and verify pairs (rxsynth)",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
}
