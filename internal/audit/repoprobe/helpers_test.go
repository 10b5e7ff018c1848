package repoprobe

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// synthCorpus writes nRepos small Java repositories under dir, each with
// its own invented vocabulary (so a model trained on one cannot guess
// another's names), a licence header, cloned methods and co-occurring
// calls.
func synthCorpus(t *testing.T, dir string, nRepos, nFiles int) {
	t.Helper()
	syl := []string{"zor", "bla", "quu", "fex", "mip", "dra", "kol", "vin", "tas", "rum", "pel", "gho"}
	for r := range nRepos {
		word := func(i int) string {
			a, b, c := syl[(r*7+i)%len(syl)], syl[(r*3+i*5+1)%len(syl)], syl[(i*11+r+2)%len(syl)]
			return a + b + string(rune('A'+r)) + c + "x" + string(rune('a'+i%26))
		}
		name := "repo" + string(rune('a'+r))
		for f := range nFiles {
			src := "/*\n * Copyright " + word(0) + " project " + name + ", all rights reserved.\n * Distributed under the " + word(1) + " licence.\n */\n" +
				"package " + name + ";\n\nimport " + name + ".util." + word(2) + ";\n\n" +
				"public class C" + word(f+3) + " {\n"
			for m := range 3 {
				src += "    public int " + word(f*3+m+20) + "(int[] items) {\n" +
					"        int acc = " + word(4) + ".start();\n" +
					"        for (int i = 0; i < items.length; i++) {\n" +
					"            acc += " + word(5) + "(items[i]) * " + word(6) + ".factor();\n" +
					"        }\n" +
					"        return " + word(7) + "(acc);\n    }\n"
			}
			src += "}\n"
			writeFile(t, filepath.Join(dir, name, "src", "C"+word(f+3)+".java"), src)
		}
	}
}
