package release

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func fixtureInputs() Inputs {
	in := func(name string) string { return filepath.Join("testdata", "in", name) }
	return Inputs{
		Core:       in("core.jsonl"),
		Excluded:   []string{in("excluded.jsonl"), in("rejections.jsonl")},
		ZeroShot:   in("zeroshot.jsonl"),
		Seeds:      in("seeds.jsonl"),
		IDMap:      in("idmap.csv"),
		Candidates: in("candidates.jsonl"),
		Executions: in("executions.jsonl"),
	}
}

// buildFixture builds the fixture release into a fresh directory.
func buildFixture(t *testing.T) (string, *Result) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rel")
	res, err := Build(context.Background(), fixtureInputs(), dir, Options{CodeLicense: "MIT", Name: "fixture corpus", Version: "0.1.0"})
	testcheck.Must(t, err)
	return dir, res
}

func TestBuildAndCheck(t *testing.T) {
	dir, res := buildFixture(t)
	// The wanted counts are the built ones with the checked fields set.
	c := res.Manifest.Counts
	want := c
	want.Core, want.Excluded, want.Contrast, want.Seeds, want.SourceBugs = 3, 3, 2, 3, 2 // partitions
	want.ISELowConfidence, want.FixIntroducesLabel, want.EitherFlag, want.Repaired = 1, 1, 2, 1
	want.Confirmed, want.Unconfirmed, want.NotRun = 1, 1, 1 // executions
	// Seeds give Lang-7-a, Lang-7-b, Math-3 (bug ids), Lang-7 (source bug;
	// Math-3 is both) and the alias L7.
	want.IDMap, want.Aliases, want.ExemplarIDs, want.ExemplarSourceBugs, want.WithExemplars = 5, 1, 4, 2, 3
	if d := cmp.Diff(want, c); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	if want := []string{"pair p-ise-1: ise_low_confidence false → true"}; !cmp.Equal(res.FlagChanges, want) {
		t.Errorf("flag changes = %q, want %q", res.FlagChanges, want)
	}
	chk, err := Check(context.Background(), dir)
	testcheck.Must(t, err)
	if !chk.OK() {
		t.Fatalf("fresh release fails its check:\n%s", problems(chk))
	}
	testcheck.Eq(t, "checked files", chk.Files, 13)
	testcheck.Eq(t, "checked records", chk.Records, 3+3+2+3+5+5)
	for _, name := range []string{DatasheetFile, ManifestFile, "core.jsonl", "excluded.jsonl", "seeds.json", "id_map.csv", "generation.csv", "schemas/core.schema.json", "schemas/generation.schema.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		testcheck.Must(t, err)
		golden.Check(t, filepath.Join("testdata", "golden", name), data)
	}
}

func problems(r *CheckResult) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// reseal recomputes path's size and hash in the manifest, so a test
// corruption shows up as exactly the defect it introduces.
func reseal(t *testing.T, dir, path string) {
	t.Helper()
	var m Manifest
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	testcheck.Must(t, err)
	testcheck.Must(t, json.Unmarshal(raw, &m))
	data, err := os.ReadFile(filepath.Join(dir, path))
	testcheck.Must(t, err)
	for i := range m.Files {
		if m.Files[i].Path == path {
			sum := sha256.Sum256(data)
			m.Files[i].SHA256, m.Files[i].Bytes = hex.EncodeToString(sum[:]), int64(len(data))
		}
	}
	out, _ := json.MarshalIndent(m, "", "  ")
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, ManifestFile), out, 0o644))
}

// edit replaces the first occurrence of old in path (which must exist).
func edit(t *testing.T, dir, path, old, new string, resealIt bool) {
	t.Helper()
	p := filepath.Join(dir, path)
	data, err := os.ReadFile(p)
	testcheck.Must(t, err)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	testcheck.Must(t, os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644))
	if resealIt {
		reseal(t, dir, path)
	}
}

func TestCheckDetectsCorruption(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(t *testing.T, dir string)
		want    Problem // Msg is a substring
	}{
		{"hash mismatch", func(t *testing.T, d string) { edit(t, d, "contrast.jsonl", `"zph"`, `"zpH"`, false) },
			Problem{File: "contrast.jsonl", Msg: "does not match the manifest"}},
		{"size mismatch", func(t *testing.T, d string) { edit(t, d, "contrast.jsonl", `"zph"`, `"zph2"`, false) },
			Problem{File: "contrast.jsonl", Msg: "size"}},
		{"missing required field", func(t *testing.T, d string) {
			edit(t, d, "core.jsonl", `"generator":"llm:gpt-x","prompt_hash":"ph2",`, ``, true)
		}, Problem{File: "core.jsonl", Line: 2, Field: "generator", Msg: "required field is missing"}},
		{"unknown field", func(t *testing.T, d string) {
			edit(t, d, "excluded.jsonl", `"stage":"judge"`, `"stage":"judge","extra":1`, true)
		}, Problem{File: "excluded.jsonl", Line: 1, Field: "extra", Msg: "unknown field"}},
		{"dangling exemplar id", func(t *testing.T, d string) {
			edit(t, d, "core.jsonl", `"L7"`, `"L8"`, true)
		}, Problem{File: "core.jsonl", Line: 2, Field: "example_bug_ids[1]", Msg: `"L8" is not in id_map.csv`}},
		{"dangling id in generation.csv", func(t *testing.T, d string) {
			edit(t, d, "generation.csv", `Lang-7-b;L7`, `Lang-7-b;L9`, true)
		}, Problem{File: "generation.csv", Line: 3, Field: "example_bug_ids[1]", Msg: "not in id_map.csv"}},
		{"enum", func(t *testing.T, d string) {
			edit(t, d, "core.jsonl", `"error_type":"NullPointerException"`, `"error_type":"FooException"`, true)
		}, Problem{File: "core.jsonl", Line: 1, Field: "error_type", Msg: "is not one of"}},
		{"minimum", func(t *testing.T, d string) { edit(t, d, "core.jsonl", `"size_target":3`, `"size_target":-3`, true) },
			Problem{File: "core.jsonl", Line: 1, Field: "size_target", Msg: "below the minimum 0"}},
		{"wrong type in nested object", func(t *testing.T, d string) {
			edit(t, d, "core.jsonl", `"confidence":0.9`, `"confidence":"high"`, true)
		}, Problem{File: "core.jsonl", Line: 1, Field: "judge.confidence", Msg: "want number, got string"}},
		{"csv type error", func(t *testing.T, d string) { edit(t, d, "generation.csv", `,ph1,3,`, `,ph1,three,`, true) },
			Problem{File: "generation.csv", Line: 2, Field: "size_target", Msg: "want integer, got string"}},
		{"seed element missing field", func(t *testing.T, d string) {
			edit(t, d, "seeds.json", `,"diff":"@@ -5,3 +5,6 @@\n"`, ``, true)
		}, Problem{File: "seeds.json", Line: 4, Field: "diff", Msg: "required field is missing"}},
		{"duplicate id", func(t *testing.T, d string) {
			edit(t, d, "excluded.jsonl", "\n", "\n"+firstLine(t, d, "excluded.jsonl")+"\n", true)
		}, Problem{File: "excluded.jsonl", Line: 2, Field: "pair_id", Msg: "already used at line 1"}},
		{"wrong flag", func(t *testing.T, d string) {
			edit(t, d, "core.jsonl", `"fix_introduces_label":true`, `"fix_introduces_label":false`, true)
		}, Problem{File: "core.jsonl", Line: 2, Field: "flags.fix_introduces_label", Msg: "the methods give true"}},
		{"datasheet count", func(t *testing.T, d string) {
			edit(t, d, DatasheetFile, "| core | 3 |", "| core | 4 |", true)
		}, Problem{File: DatasheetFile, Line: 26, Msg: "the records give"}},
		{"manifest count", func(t *testing.T, d string) {
			edit(t, d, ManifestFile, `"core": 3,`, `"core": 4,`, false)
		}, Problem{File: ManifestFile, Field: "counts.core", Msg: "manifest says 4, the records give 3"}},
		{"unlisted file", func(t *testing.T, d string) {
			testcheck.Must(t, os.WriteFile(filepath.Join(d, "notes.txt"), []byte("x"), 0o644))
		}, Problem{File: "notes.txt", Msg: "not listed in the manifest"}},
		{"missing file", func(t *testing.T, d string) {
			testcheck.Must(t, os.Remove(filepath.Join(d, "seeds.json")))
		}, Problem{File: "seeds.json", Msg: "cannot be read"}},
		{"unsupported schema keyword", func(t *testing.T, d string) {
			edit(t, d, "schemas/core.schema.json", `"type": "object",`, `"type": "object", "pattern": "x",`, true)
		}, Problem{File: "schemas/core.schema.json", Msg: "unsupported"}},
		{"cross-partition id", func(t *testing.T, d string) {
			edit(t, d, "excluded.jsonl", `"pair_id":"p-x-1"`, `"pair_id":"p-npe-1"`, true)
		}, Problem{File: "excluded.jsonl", Line: 1, Field: "pair_id", Msg: "also in the core partition"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := buildFixture(t)
			tt.corrupt(t, dir)
			res, err := Check(context.Background(), dir)
			testcheck.Must(t, err)
			for _, p := range res.Problems {
				if p.File == tt.want.File && p.Line == tt.want.Line && p.Field == tt.want.Field && strings.Contains(p.Msg, tt.want.Msg) {
					return
				}
			}
			t.Errorf("want a problem like %s; got:\n%s", tt.want, problems(res))
		})
	}
}

func firstLine(t *testing.T, dir, path string) string {
	data, err := os.ReadFile(filepath.Join(dir, path))
	testcheck.Must(t, err)
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

func TestCheckNoManifest(t *testing.T) {
	if _, err := Check(context.Background(), t.TempDir()); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	dir, _ := buildFixture(t)
	edit(t, dir, ManifestFile, FormatVersion, "other/9", false)
	if _, err := Check(context.Background(), dir); !errors.Is(err, errs.ErrUnsupported) {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
}

func TestBuildErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		testcheck.Must(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	core := firstLineOf(t, "testdata/in/core.jsonl")
	tests := []struct {
		name string
		mod  func(in *Inputs)
		out  string
		want error
		msg  string
	}{
		{"dangling exemplar", func(in *Inputs) {
			in.Core = write("c1.jsonl", "\n"+strings.Replace(core, `"Lang-7-a"`, `"Nope-1"`, 1)+"\n")
		}, "", errs.ErrInput, `c1.jsonl:2: pair p-npe-1: invalid input: example_bug_ids entry "Nope-1"`},
		{"zero-shot with exemplars", func(in *Inputs) { in.ZeroShot = in.Core }, "", errs.ErrInput, "core.jsonl:1: pair p-npe-1"},
		{"pair in two partitions", func(in *Inputs) {
			in.Excluded = []string{write("x.jsonl", `{"pair_id":"p-npe-1","error_type":"NullPointerException","category":"stage1_reject"}`+"\n")}
		}, "", errs.ErrInput, `pair id "p-npe-1" already used at testdata/in/core.jsonl:1`},
		{"excluded neither judge nor gate", func(in *Inputs) {
			in.Excluded = []string{write("x2.jsonl", `{"pair_id":"q","error_type":"NullPointerException"}`+"\n")}
		}, "", errs.ErrInput, "x2.jsonl:1"},
		{"core without judge", func(in *Inputs) {
			in.Core = write("c2.jsonl", strings.Replace(core, `"verdict":"accept"`, `"verdict":"reject"`, 1)+"\n")
		}, "", errs.ErrInput, "c2.jsonl:1: pair p-npe-1"},
		{"alias to unknown bug", func(in *Inputs) { in.IDMap = write("m.csv", "id,source_bug\nX,Chart-1\n") }, "", errs.ErrInput, "m.csv:2"},
		{"alias conflict", func(in *Inputs) { in.IDMap = write("m2.csv", "source_bug,id\nMath-3,Lang-7-a\n") }, "", errs.ErrInput, `m2.csv:2: invalid input: id "Lang-7-a" maps to "Math-3"`},
		{"malformed id map csv", func(in *Inputs) { in.IDMap = write("m3.csv", "id,source_bug\n\"L7,Lang-7\n") }, "", errs.ErrInput, "m3.csv"},
		{"id map jsonl", func(in *Inputs) { in.IDMap = write("m4.jsonl", `{"id":"L7","source_bug":"Nope"}`+"\n") }, "", errs.ErrInput, "m4.jsonl:1"},
		{"missing seeds", func(in *Inputs) { in.Seeds = filepath.Join(tmp, "none.jsonl") }, "", errs.ErrNotFound, "none.jsonl"},
		{"no seeds flag", func(in *Inputs) { in.Seeds = "" }, "", errs.ErrUsage, "required"},
		{"malformed core", func(in *Inputs) { in.Core = write("c3.jsonl", "{}\n{oops\n") }, "", errs.ErrInput, "c3.jsonl:2: invalid input"},
		{"bad execution status", func(in *Inputs) {
			in.Executions = write("e.jsonl", `{"pair_id":"p-npe-1","status":"maybe"}`+"\n")
		}, "", errs.ErrInput, "e.jsonl:1"},
		{"out dir not empty", func(in *Inputs) {}, "testdata", errs.ErrUsage, "not empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fixtureInputs()
			tt.mod(&in)
			out := tt.out
			if out == "" {
				out = filepath.Join(t.TempDir(), "rel")
			}
			_, err := Build(context.Background(), in, out, Options{CodeLicense: "MIT"})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v\nwant %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

func firstLineOf(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	testcheck.Must(t, err)
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

// TestISEThreshold: a lower threshold flags only ISE pairs accepted at or
// below it, and the check verifies against the manifest's threshold.
func TestISEThreshold(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rel")
	th := 0.5
	res, err := Build(context.Background(), fixtureInputs(), dir, Options{CodeLicense: "MIT", ISEMaxConfidence: &th})
	testcheck.Must(t, err)
	if res.Manifest.Counts.ISELowConfidence != 0 || res.Manifest.ISEMaxConfidence != 0.5 {
		t.Errorf("ise count %d at threshold %v", res.Manifest.Counts.ISELowConfidence, res.Manifest.ISEMaxConfidence)
	}
	chk, err := Check(context.Background(), dir)
	if err != nil || !chk.OK() {
		t.Fatalf("check: %v\n%s", err, problems(chk))
	}
}

func TestCountsDeterministic(t *testing.T) {
	a, _ := buildFixture(t)
	b, _ := buildFixture(t)
	var names []string
	for _, f := range dataFiles {
		names = append(names, f.Path)
	}
	names = append(names, ManifestFile, DatasheetFile)
	sort.Strings(names)
	for _, n := range names {
		x, _ := os.ReadFile(filepath.Join(a, n))
		y, _ := os.ReadFile(filepath.Join(b, n))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two builds", n)
		}
	}
}

// TestMinimalRelease: core and seeds only; the empty partitions are still
// files with schemas, and the release checks clean.
func TestMinimalRelease(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rel")
	in := Inputs{Core: "testdata/in/core.jsonl", Seeds: "testdata/in/seeds.jsonl"}
	// Without the alias row, the exemplar "L7" does not resolve.
	if _, err := Build(context.Background(), in, dir, Options{CodeLicense: "MIT"}); !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), `"L7"`) {
		t.Fatalf("err = %v", err)
	}
	in.IDMap = "testdata/in/idmap.csv"
	res, err := Build(context.Background(), in, dir, Options{CodeLicense: "MIT"})
	testcheck.Must(t, err)
	if c := res.Manifest.Counts; c.Excluded != 0 || c.Contrast != 0 || c.NotRun != 3 {
		t.Errorf("counts %+v", c)
	}
	chk, err := Check(context.Background(), dir)
	if err != nil || !chk.OK() {
		t.Fatalf("check: %v\n%s", err, problems(chk))
	}
}
