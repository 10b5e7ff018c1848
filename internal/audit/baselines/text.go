package baselines

import (
	"strings"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/diff"
)

// PatchText is the text a sample is scored on (benchchecker §5.1): the
// lines the gold patch adds to source files (patchcheck.IsSource: tests,
// docs and build files dropped), in patch order, one per line, with their
// indentation. It is "" when the patch does not parse or adds no source line.
func PatchText(patch string) string {
	fds, err := diff.ParseString(patch)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, fd := range fds {
		name := fd.NewPath
		if name == "" || !patchcheck.IsSource(name) {
			continue
		}
		for _, h := range fd.Hunks {
			writeAdded(&b, h.Lines)
		}
	}
	return b.String()
}

// writeAdded writes a hunk's non-blank added lines, one per line.
func writeAdded(b *strings.Builder, lines []diff.Line) {
	for _, l := range lines {
		if l.Op == diff.Add && strings.TrimSpace(l.Text) != "" {
			b.WriteString(strings.TrimRight(l.Text, "\r"))
			b.WriteByte('\n')
		}
	}
}

// Snippets samples up to n snippets of at most lines lines from files (in
// the order given): files are taken evenly spaced, and from each the window
// centred on its middle line. Blank-only windows are skipped. It is
// deterministic, so a repository's baseline is reproducible.
func Snippets(files [][]byte, n, lines int) []string {
	if n <= 0 || lines <= 0 || len(files) == 0 {
		return nil
	}
	var out []string
	step := max(1, len(files)/n)
	for i := 0; i < len(files) && len(out) < n; i += step {
		if w := middle(files[i], lines); strings.TrimSpace(w) != "" {
			out = append(out, w)
		}
	}
	return out
}

// middle is the window of (at most) lines lines at the middle of a file.
func middle(file []byte, lines int) string {
	ls := strings.SplitAfter(string(file), "\n")
	if len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	start := max(0, len(ls)/2-lines/2)
	end := min(len(ls), start+lines)
	return strings.Join(ls[start:end], "")
}
