package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandListedIsDocumentedAndReachable walks Commands, the list
// main passes to Run: every command in it (and every subcommand it adds
// itself) has help text, a heading in the committed docs/ page of its
// group, and is reached by its path on the command line.
func TestEveryCommandListedIsDocumentedAndReachable(t *testing.T) {
	root := newRoot(&app{stdout: io.Discard, stderr: io.Discard}, Commands())
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			path := sub.CommandPath()
			if seen[path] {
				t.Errorf("%s is in the tree twice", path)
			}
			seen[path] = true
			checkListedCommand(t, sub)
			walk(sub)
		}
	}
	walk(root)
	if len(root.Commands()) < len(Commands()) {
		t.Errorf("the root has %d commands, the list %d", len(root.Commands()), len(Commands()))
	}
	for _, c := range Commands() {
		if !seen["benchforge "+c.New(&app{}).Name()] {
			t.Errorf("listed command %s is not in the tree", c.New(&app{}).Name())
		}
	}
}

// checkListedCommand checks one command's help, docs page and path.
func checkListedCommand(t *testing.T, c *cobra.Command) {
	t.Helper()
	path := c.CommandPath()
	if strings.TrimSpace(c.Short) == "" {
		t.Errorf("%s has no help text (Short)", path)
	}
	group := strings.Fields(path)[1]
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", group+".md"))
	if err != nil || !strings.Contains(string(page), "# `"+path+"`") {
		t.Errorf("%s has no section in docs/%s.md (%v): run `benchforge docs --out docs`", path, group, err)
	}
	args := append(strings.Fields(path)[1:], "--help")
	code, stdout, stderr := runCLI(t, args...)
	help, _, _ := strings.Cut(strings.TrimSpace(c.Long), "\n") // cobra shows Long when set
	if help == "" {
		help = c.Short
	}
	if code != 0 || !strings.Contains(stdout, help) || !strings.Contains(stdout, "Usage:\n  "+path) {
		t.Errorf("benchforge %s: exit %d, help does not show %q and its usage: %s", strings.Join(args, " "), code, help, stderr)
	}
}
