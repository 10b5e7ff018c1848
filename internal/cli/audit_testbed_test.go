package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTestbedCorpus writes n tiny Java repositories, each with its own
// invented names, cloned methods and a licence header.
func writeTestbedCorpus(t *testing.T, dir string, n int) {
	t.Helper()
	for r := range n {
		tag := fmt.Sprintf("Q%cz%cx", 'a'+r, 'k'+r)
		for f := range 10 {
			src := fmt.Sprintf("/*\n * Copyright %sproject, all rights reserved.\n */\npackage p%s;\n\npublic class C%d%s {\n", tag, tag, f, tag)
			for m := range 3 {
				src += fmt.Sprintf("    public int run%d%d%s(int[] xs) {\n        int acc = %sStart.begin();\n        for (int i = 0; i < xs.length; i++) {\n            acc += %sMul(xs[i]) * %sScale.factor();\n        }\n        return %sFinish(acc);\n    }\n",
					f, m, tag, tag, tag, tag, tag)
			}
			src += "}\n"
			p := filepath.Join(dir, "repo"+tag, fmt.Sprintf("C%d.java", f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestAuditTestbed(t *testing.T) {
	dir := t.TempDir()
	writeTestbedCorpus(t, dir, 8)
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"benchforge", "audit", "testbed", "--corpus", dir, "--seed", "2",
		"--min-files", "5", "--max-queries", "30", "--samples", "5", "--order", "4", "--reuse", "1", "--out", out, "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res struct {
		Repos   []json.RawMessage `json:"repos"`
		Summary []struct {
			Config string   `json:"config"`
			AUC    *float64 `json:"auc"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, stdout.String())
	}
	if len(res.Repos) != 9 || len(res.Summary) != 5 || res.Summary[0].AUC == nil {
		t.Errorf("repos %d summary %+v", len(res.Repos), res.Summary)
	}
	for _, f := range []string{"testbed.json", "verdicts.jsonl", "probes.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}

	// Table output.
	stdout.Reset()
	code = Run(context.Background(), []string{"benchforge", "audit", "testbed", "--corpus", dir, "--seed", "2",
		"--min-files", "5", "--max-queries", "30", "--samples", "5", "--order", "4", "--reuse", "1", "--out", out}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "w/o-distinctiveness") || !strings.Contains(stdout.String(), "sequential stopping used") {
		t.Errorf("exit %d, table:\n%s", code, stdout.String())
	}
}

func TestAuditTestbedBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--seen-fraction", "1.5", "--corpus", "x"}, exitUsage},
		{[]string{"--corpus", filepath.Join(t.TempDir(), "nope.zip")}, exitNotFound},
		{[]string{"--corpus", t.TempDir()}, exitInput}, // no repositories
	} {
		var stdout, stderr bytes.Buffer
		if code := Run(context.Background(), append([]string{"benchforge", "audit", "testbed"}, c.args...), &stdout, &stderr); code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, stderr.String())
		}
	}
}
