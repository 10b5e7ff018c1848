package cli

import "github.com/spf13/cobra"

// synthSubcommands holds the constructors of `benchforge synth ...`
// subcommands. The synth command is shared by several files (verify,
// generate, judge, ...), each owned separately, so no file lists the
// others: a subcommand file appends its constructor here from its own
// init function,
//
//	func init() { synthSubcommands = append(synthSubcommands, newSynthVerifyCmd) }
//
// and newSynthCmd adds them all, in name order (cobra sorts them).
var synthSubcommands []func(*app) *cobra.Command

func init() { register("synth", newSynthCmd) }

func newSynthCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Synthetic bug/fix corpora: generate, validate and verify pairs (rxsynth)",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	for _, ctor := range synthSubcommands {
		cmd.AddCommand(ctor(a))
	}
	return cmd
}
