package cli

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagUse is one flag of one command.
type flagUse struct {
	cmd, name, typ, usage string
}

// allFlags walks the whole command tree and returns every local,
// non-deprecated flag.
func allFlags(root *cobra.Command) []flagUse {
	var out []flagUse
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Deprecated != "" || f.Name == "help" {
				return
			}
			out = append(out, flagUse{c.CommandPath(), f.Name, f.Value.Type(), f.Usage})
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// concepts name the flags that mean one thing across commands: the one
// name of each, what its help must say, and the names it must never go
// by. A flag of that name whose help does not match has a second meaning.
var concepts = []struct {
	name    string
	means   *regexp.Regexp
	notMean *regexp.Regexp
	aliases []string
}{
	{"clone-dir", regexp.MustCompile(`clone cache`), nil, []string{"cache", "clone-cache", "repo-cache", "repos-cache"}},
	{"cache-dir", regexp.MustCompile(`model answer cache`), nil, []string{"llm-cache", "answer-cache", "model-cache"}},
	{"key-file", regexp.MustCompile(`API key`), nil, []string{"api-key-file", "keyfile", "key", "api-key"}},
	{"repos", regexp.MustCompile(`local clones`), nil, []string{"repo-dir", "repos-dir", "clones", "clone-root"}},
	{"mapping", regexp.MustCompile(`^JSON file mapping repository`), nil, []string{"repo-map", "map", "repo-mapping"}},
	// --corpus is source code to learn from or mine; pairs files are
	// --pairs (or --candidates for unvalidated ones).
	{"corpus", regexp.MustCompile(`(?i)director|zip|src\.zip|folder|source`), regexp.MustCompile(`(?i)pairs JSONL`), []string{"source", "sources", "src"}},
	{"pairs", regexp.MustCompile(`pairs JSONL`), nil, nil},
	// --model is the model the command uses or is about: a spec, a
	// .bfng file, or the model whose records to read.
	{"model", regexp.MustCompile(`model`), nil, []string{"model-spec", "target", "target-model"}},
	{"reference-model", regexp.MustCompile(`reference model`), nil, []string{"ref-model"}},
	{"max-cost", regexp.MustCompile(`US dollars`), nil, []string{"budget-usd", "cost-limit"}},
	{"recheck", regexp.MustCompile(`redo finished records`), nil, []string{"retry", "redo"}},
	{"seed", regexp.MustCompile(`(?i)seed`), nil, nil},
}

// TestFlagsOneNameOneMeaning walks the cobra tree: a flag name has one type
// everywhere, the flags of a concept keep their one name and meaning, and
// no command calls a concept by another name.
func TestFlagsOneNameOneMeaning(t *testing.T) {
	root := newRoot(&app{stdout: io.Discard, stderr: io.Discard}, Commands())
	flags := allFlags(root)
	if problems := flagProblems(flags); len(problems) > 0 {
		t.Errorf("%d flag inconsistencies:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

func flagProblems(flags []flagUse) []string {
	var problems []string
	types := map[string]map[string][]string{} // name → type → commands
	for _, f := range flags {
		if types[f.name] == nil {
			types[f.name] = map[string][]string{}
		}
		types[f.name][f.typ] = append(types[f.name][f.typ], f.cmd)
	}
	for name, ts := range types {
		if len(ts) < 2 {
			continue
		}
		var parts []string
		for typ, cmds := range ts {
			parts = append(parts, fmt.Sprintf("%s in %s", typ, strings.Join(cmds, ", ")))
		}
		sort.Strings(parts)
		problems = append(problems, fmt.Sprintf("--%s has %d types: %s", name, len(ts), strings.Join(parts, "; ")))
	}
	for _, c := range concepts {
		for _, f := range flags {
			switch {
			case f.name == c.name && !c.means.MatchString(f.usage):
				problems = append(problems, fmt.Sprintf("%s --%s means something else: %q (want /%s/)", f.cmd, f.name, f.usage, c.means))
			case f.name == c.name && c.notMean != nil && c.notMean.MatchString(f.usage):
				problems = append(problems, fmt.Sprintf("%s --%s means something else: %q", f.cmd, f.name, f.usage))
			}
			for _, a := range c.aliases {
				if f.name == a {
					problems = append(problems, fmt.Sprintf("%s --%s is another name for --%s", f.cmd, f.name, c.name))
				}
			}
		}
	}
	sort.Strings(problems)
	return problems
}

// TestFlagProblemsCatches: the checker itself finds a second type, a second
// meaning and a second name.
func TestFlagProblemsCatches(t *testing.T) {
	got := strings.Join(flagProblems([]flagUse{
		{"a", "seed", "int64", "seed"}, {"b", "seed", "uint64", "seed"},
		{"c", "corpus", "string", "pairs JSONL (corpus.Pair records)"},
		{"d", "cache", "string", "clone cache directory"},
	}), "\n")
	for _, want := range []string{"--seed has 2 types", "c --corpus means something else", "d --cache is another name for --clone-dir"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
