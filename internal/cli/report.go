package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/errs"
)

func newReportCmd(a *app) *cobra.Command {
	var in, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report --in DIR [--out FILE]",
		Short: "Render the HTML report of an audit directory from its files alone",
		Long: `report renders one self-contained HTML page (inline CSS, script and SVG)
from the JSONL/JSON outputs in --in: manifest.json, repos.jsonl and
verdicts.jsonl of 'audit run', eval-*.json from 'audit eval --stage ...
--roc DIR/eval-STAGE.json', rescore.json from 'audit rescore --out DIR'
and testbed.json from 'audit testbed --out DIR'. No model is called.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if in == "" {
				return fmt.Errorf("report: --in is required: %w", errs.ErrUsage)
			}
			if out == "" {
				out = filepath.Join(in, pipeline.FileReport)
			}
			if err := pipeline.WriteReport(in, out); err != nil {
				return err // already "report: DIR ..."
			}
			if asJSON {
				return writeJSON(a.stdout, struct {
					In     string `json:"in"`
					Report string `json:"report"`
				}{in, out})
			}
			_, err := fmt.Fprintf(a.stdout, "wrote %s\n", out)
			return err
		},
	}
	cmd.Flags().StringVar(&in, "in", "", "audit output directory (required)")
	cmd.Flags().StringVar(&out, "out", "", "HTML file to write (default: DIR/report.html)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the written path as JSON")
	return cmd
}
