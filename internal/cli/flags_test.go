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
	// The names below are declared by several commands with wording of
	// their own; each pattern is the one meaning all of them share. A
	// flag shared word for word belongs in flaggroups.go instead.
	{"alpha", regexp.MustCompile(`^significance level of the .*presence test$`), nil, nil},
	{"batch", regexp.MustCompile(`(?i)^(prompts|pairs) per (resumable chunk|javac run)`), nil, nil},
	{"candidates", regexp.MustCompile(`(?i)^candidate.* JSONL`), nil, nil},
	{"cutoff", regexp.MustCompile(`cutoff`), nil, nil},
	{"ise-max-confidence", regexp.MustCompile(`IllegalStateException pairs .*judge confidence`), nil, nil},
	{"json", regexp.MustCompile(`^print .*JSON`), nil, nil},
	{"judgements", regexp.MustCompile(`^judgements\.jsonl`), nil, nil},
	{"manifest", regexp.MustCompile(`^testbed manifest`), nil, []string{"testbed-manifest"}},
	{"write-manifest", regexp.MustCompile(`^write the run manifest`), nil, nil},
	{"max-file-bytes", regexp.MustCompile(`^skip (larger )?files`), nil, nil},
	{"max-files", regexp.MustCompile(`^source files .* per (snapshot|repository)`), nil, nil},
	{"max-queries", regexp.MustCompile(`^signature snippets per repository`), nil, nil},
	{"max-size", regexp.MustCompile(`files larger than this many bytes$`), nil, nil},
	{"max-tokens", regexp.MustCompile(`(?i)tokens`), nil, nil},
	{"n", regexp.MustCompile(`(?i)^(number of samples|completions to draw)$`), nil, nil},
	{"no-cache", regexp.MustCompile(`^do not cache model answers`), nil, nil},
	{"order", regexp.MustCompile(`^n-gram order`), nil, nil},
	// --out is where the command writes: a file or a directory.
	{"out", regexp.MustCompile(`(?i)write|output|director|folder|append`), nil, []string{"output", "out-dir", "outdir"}},
	{"prompt", regexp.MustCompile(`(?i)text`), nil, nil},
	{"reference-set", regexp.MustCompile(`fidelity reference.set|seed bug_ids`), nil, nil},
	{"render-only", regexp.MustCompile(`^re-render DIR/\w+\.json without recomputing$`), nil, nil},
	{"samples", regexp.MustCompile(`^candidates .*per query`), nil, nil},
	{"seeds", regexp.MustCompile(`seed`), nil, nil},
	{"stop", regexp.MustCompile(`^stop strings?`), nil, nil},
	{"temperature", regexp.MustCompile(`^sampling temperature`), nil, nil},
	{"threshold", regexp.MustCompile(`line similarity threshold$`), nil, nil},
	{"top-p", regexp.MustCompile(`^nucleus sampling`), nil, nil},
	{"verdicts", regexp.MustCompile(`^verdicts`), nil, nil},
	{"workers", regexp.MustCompile(`(?i)parallel|concurrent|in flight|worker`), nil, []string{"jobs", "parallel", "threads"}},
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
	problems = append(problems, usageProblems(flags)...)
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

// usageProblems names the flags declared with two usage texts and no
// concept saying the one meaning both share: either the texts say one
// thing in other words (then the flag belongs in a flag group, or in
// concepts) or the name means two things.
func usageProblems(flags []flagUse) []string {
	known := map[string]bool{}
	for _, c := range concepts {
		known[c.name] = true
	}
	usages := map[string]map[string][]string{} // name → usage → commands
	for _, f := range flags {
		if usages[f.name] == nil {
			usages[f.name] = map[string][]string{}
		}
		usages[f.name][f.usage] = append(usages[f.name][f.usage], f.cmd)
	}
	var problems []string
	for name, us := range usages {
		if len(us) < 2 || known[name] {
			continue
		}
		var parts []string
		for u, cmds := range us {
			parts = append(parts, fmt.Sprintf("%q in %s", u, strings.Join(cmds, ", ")))
		}
		sort.Strings(parts)
		problems = append(problems, fmt.Sprintf("--%s has %d usage texts (declare it once in flaggroups.go, or name its one meaning in concepts): %s",
			name, len(us), strings.Join(parts, "; ")))
	}
	return problems
}

// TestFlagProblemsCatches: the checker itself finds a second type, a second
// meaning and a second name.
func TestFlagProblemsCatches(t *testing.T) {
	got := strings.Join(flagProblems([]flagUse{
		{"a", "seed", "int64", "seed"}, {"b", "seed", "uint64", "seed"},
		{"c", "corpus", "string", "pairs JSONL (corpus.Pair records)"},
		{"d", "cache", "string", "clone cache directory"},
		{"e", "level", "int", "compression level"}, {"f", "level", "int", "log level"},
		{"g", "json", "bool", "write YAML"},
	}), "\n")
	for _, want := range []string{"--seed has 2 types", "c --corpus means something else", "d --cache is another name for --clone-dir",
		"--level has 2 usage texts", "g --json means something else"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
