package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Defects4J layout (framework/projects/<Project>/ of rjust/defects4j):
//
//	active-bugs.csv          bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url
//	dir-layout.csv           revision,source dir,test dir (no header)
//	patches/N.src.patch      fixed → buggy diff of the sources (reverse of the fix)
//	patches/N.test.patch     fixed → buggy diff of the tests
//	trigger_tests/N          "--- <class>::<method>" per failing test, then its failure
//	modified_classes/N.src   classes the fix changes, one per line
//
// A Defects4J Sample has id "<Project>-<N>", benchmark "defects4j",
// language "java", BaseCommit the buggy revision, FixCommit the fixed
// revision, Patch and TestPatch the reverse of the stored patches (so they
// go buggy → fixed), FailToPass the trigger tests, and Meta: project,
// bug_number, report_id, report_url, src_patch_file, test_patch_file,
// trigger_tests_file, modified_classes, src_dir, test_dir.

// Defects4JRepos maps each Defects4J project to its upstream GitHub
// repository. Chart's revisions are Subversion numbers and may not resolve
// in the git mirror.
var Defects4JRepos = map[string]string{
	"Chart":           "jfree/jfreechart",
	"Cli":             "apache/commons-cli",
	"Closure":         "google/closure-compiler",
	"Codec":           "apache/commons-codec",
	"Collections":     "apache/commons-collections",
	"Compress":        "apache/commons-compress",
	"Csv":             "apache/commons-csv",
	"Gson":            "google/gson",
	"JacksonCore":     "FasterXML/jackson-core",
	"JacksonDatabind": "FasterXML/jackson-databind",
	"JacksonXml":      "FasterXML/jackson-dataformat-xml",
	"Jsoup":           "jhy/jsoup",
	"JxPath":          "apache/commons-jxpath",
	"Lang":            "apache/commons-lang",
	"Math":            "apache/commons-math",
	"Mockito":         "mockito/mockito",
	"Time":            "JodaOrg/joda-time",
}

// Defects4JProjectDirs returns the project directories under path: path
// itself when it holds active-bugs.csv, else its subdirectories that do,
// sorted by name.
func Defects4JProjectDirs(path string) ([]string, error) {
	dirs, err := defects4jProjects(path)
	if err != nil {
		return nil, fmt.Errorf("bench.Defects4JProjectDirs(%s): %w", path, err)
	}
	return dirs, nil
}

func defects4jProjects(path string) ([]string, error) {
	if fileExists(filepath.Join(path, "active-bugs.csv")) {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, openErr("read dir", path, err)
	}
	var dirs []string
	for _, e := range entries {
		d := filepath.Join(path, e.Name())
		if e.IsDir() && fileExists(filepath.Join(d, "active-bugs.csv")) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: %s holds no active-bugs.csv, neither directly nor in a project subdirectory", errs.ErrInput, path)
	}
	sort.Strings(dirs)
	return dirs, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func loadDefects4J(ctx context.Context, path string, ps *problems) ([]Sample, error) {
	dirs, err := defects4jProjects(path)
	if err != nil {
		return nil, fmt.Errorf("bench.Load(%s): %w", path, err)
	}
	var out []Sample
	for _, dir := range dirs {
		s, err := loadDefects4JProject(ctx, dir, ps)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// Defects4JBug is one row of a project's active-bugs.csv.
type Defects4JBug struct {
	Project   string
	Number    int
	Buggy     string // revision.id.buggy
	Fixed     string // revision.id.fixed
	ReportID  string
	ReportURL string
	Line      int // line in active-bugs.csv
}

// ID is the bug's Defects4J identifier, e.g. "Lang-1".
func (b Defects4JBug) ID() string { return fmt.Sprintf("%s-%d", b.Project, b.Number) }

// ReadActiveBugs parses dir/active-bugs.csv. Rows that are malformed are
// returned as Problems (strict: the first one is an error wrapping
// errs.ErrInput).
func ReadActiveBugs(dir string, strict bool) ([]Defects4JBug, []Problem, error) {
	ps := &problems{strict: strict}
	bugs, err := readActiveBugs(dir, ps)
	return bugs, ps.list, err
}

func readActiveBugs(dir string, ps *problems) ([]Defects4JBug, error) {
	file := filepath.Join(dir, "active-bugs.csv")
	project := filepath.Base(filepath.Clean(dir))
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, openErr("bench.Load", file, err)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	col, err := readActiveBugsHeader(r, file)
	if err != nil {
		return nil, err
	}
	seen := map[int]int{} // bug number -> its line
	var bugs []Defects4JBug
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return bugs, nil
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			if perr := ps.add(Problem{File: file, Line: line, Msg: "malformed CSV: " + err.Error()}); perr != nil {
				return nil, perr
			}
			continue
		}
		b, fe := col.bug(rec, project, line, seen)
		if len(fe) == 0 {
			bugs = append(bugs, b)
			continue
		}
		id := ""
		if b.Number > 0 {
			id = b.ID()
		}
		if perr := ps.addFields(file, line, id, fe); perr != nil {
			return nil, perr
		}
	}
}

// csvColumns maps a CSV header's column names to their indexes.
type csvColumns map[string]int

// readActiveBugsHeader reads the header of active-bugs.csv and checks
// that it has the columns a bug needs.
func readActiveBugsHeader(r *csv.Reader, file string) (csvColumns, error) {
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("bench.Load(%s:1): %w: cannot read the header: %v", file, errs.ErrInput, err)
	}
	col := csvColumns{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, h := range []string{"bug.id", "revision.id.buggy", "revision.id.fixed"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("bench.Load(%s:1): %w: header lacks column %q (want bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url)", file, errs.ErrInput, h)
		}
	}
	return col, nil
}

// get returns rec's trimmed value in column name, or "" when it has none.
func (col csvColumns) get(rec []string, name string) string {
	if i, ok := col[name]; ok && i < len(rec) {
		return strings.TrimSpace(rec[i])
	}
	return ""
}

// bug reads the bug of record rec at line and what is wrong with it; seen
// holds the lines of the bug numbers read so far and gains this one's.
func (col csvColumns) bug(rec []string, project string, line int, seen map[int]int) (Defects4JBug, []fieldErr) {
	b := Defects4JBug{Project: project, Buggy: col.get(rec, "revision.id.buggy"), Fixed: col.get(rec, "revision.id.fixed"),
		ReportID: col.get(rec, "report.id"), ReportURL: col.get(rec, "report.url"), Line: line}
	var fe []fieldErr
	n, err := strconv.Atoi(col.get(rec, "bug.id"))
	switch {
	case err != nil || n <= 0:
		fe = append(fe, fieldErr{"bug.id", fmt.Sprintf("want a positive integer, got %q", col.get(rec, "bug.id"))})
	case seen[n] > 0:
		fe = append(fe, fieldErr{"bug.id", fmt.Sprintf("duplicate bug id, first at line %d", seen[n])})
	default:
		seen[n] = line
	}
	b.Number = n
	if b.Buggy == "" {
		fe = append(fe, fieldErr{"revision.id.buggy", "empty"})
	}
	if b.Fixed == "" {
		fe = append(fe, fieldErr{"revision.id.fixed", "empty"})
	}
	return b, fe
}

func loadDefects4JProject(ctx context.Context, dir string, ps *problems) ([]Sample, error) {
	bugs, err := readActiveBugs(dir, ps)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "active-bugs.csv")
	project := filepath.Base(filepath.Clean(dir))
	repo, known := Defects4JRepos[project]
	if !known {
		return nil, unknownProject(ps, file, project, bugs)
	}
	layout := readDirLayout(filepath.Join(dir, "dir-layout.csv"))
	var out []Sample
	for _, b := range bugs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bench.Load(%s): %w", dir, err)
		}
		s, fe := defects4jSample(dir, repo, b, layout)
		if fe != nil {
			if err := ps.add(Problem{File: file, Line: b.Line, ID: b.ID(), Field: fe.field, Msg: fe.msg}); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// unknownProject reports each bug of a project whose upstream repository
// is not in Defects4JRepos.
func unknownProject(ps *problems, file, project string, bugs []Defects4JBug) error {
	names := make([]string, 0, len(Defects4JRepos))
	for n := range Defects4JRepos {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, b := range bugs {
		if err := ps.add(Problem{File: file, Line: b.Line, ID: b.ID(), Field: "project",
			Msg: fmt.Sprintf("unknown Defects4J project %q (known: %s); its upstream repository is not known", project, strings.Join(names, ", "))}); err != nil {
			return err
		}
	}
	return nil
}

func defects4jSample(dir, repo string, b Defects4JBug, layout map[string][2]string) (Sample, *fieldErr) {
	n := strconv.Itoa(b.Number)
	srcFile := filepath.Join(dir, "patches", n+".src.patch")
	testFile := filepath.Join(dir, "patches", n+".test.patch")
	trigFile := filepath.Join(dir, "trigger_tests", n)
	s := Sample{
		ID: b.ID(), Benchmark: "defects4j", Repo: repo, Language: "java",
		BaseCommit: b.Buggy, FixCommit: b.Fixed,
		Meta: map[string]any{
			"project": b.Project, "bug_number": b.Number, "report_id": b.ReportID, "report_url": b.ReportURL,
			"src_patch_file": srcFile, "trigger_tests_file": trigFile,
		},
	}
	var fe *fieldErr
	if s.Patch, fe = srcPatch(srcFile); fe != nil {
		return s, fe
	}
	var found bool
	if s.TestPatch, found, fe = testPatch(testFile); found {
		s.Meta["test_patch_file"] = testFile
	}
	if fe != nil {
		return s, fe
	}
	trig, err := os.ReadFile(trigFile)
	if err != nil {
		return s, &fieldErr{"trigger_tests", fmt.Sprintf("cannot read %s: %v", trigFile, err)}
	}
	s.Tests.FailToPass = TriggerTestNames(trig)
	if len(s.Tests.FailToPass) == 0 {
		return s, &fieldErr{"trigger_tests", trigFile + " names no test (want \"--- <class>::<method>\" lines)"}
	}
	if mc, err := os.ReadFile(filepath.Join(dir, "modified_classes", n+".src")); err == nil {
		s.Meta["modified_classes"] = nonBlankLines(mc)
	}
	if l, ok := layout[b.Buggy]; ok {
		s.Meta["src_dir"], s.Meta["test_dir"] = l[0], l[1]
	}
	return s, nil
}

// srcPatch reads a bug's source patch, which Defects4J stores fixed →
// buggy, and reverses it into the fix.
func srcPatch(file string) (string, *fieldErr) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", &fieldErr{"src_patch", fmt.Sprintf("cannot read %s: %v", file, err)}
	}
	patch, err := reverseDiff(string(src))
	if err != nil {
		return patch, &fieldErr{"src_patch", fmt.Sprintf("%s: cannot reverse: %v", file, err)}
	}
	if strings.TrimSpace(patch) == "" {
		return patch, &fieldErr{"src_patch", file + " is empty"}
	}
	return patch, nil
}

// testPatch reads and reverses a bug's test patch, which may be missing;
// found reports that the file exists.
func testPatch(file string) (patch string, found bool, fe *fieldErr) {
	test, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, &fieldErr{"test_patch", fmt.Sprintf("cannot read %s: %v", file, err)}
	}
	if patch, err = reverseDiff(string(test)); err != nil {
		return patch, true, &fieldErr{"test_patch", fmt.Sprintf("%s: cannot reverse: %v", file, err)}
	}
	return patch, true, nil
}

// nonBlankLines returns the trimmed lines of data that are not blank.
func nonBlankLines(data []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TriggerTestNames returns the "<class>::<method>" names of the
// "--- <class>::<method>" header lines of a Defects4J trigger_tests file,
// in file order, without duplicates.
func TriggerTestNames(data []byte) []string {
	var names []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	for sc.Scan() {
		if name, ok := TriggerHeader(sc.Text()); ok && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// TriggerHeader reports whether line is a trigger_tests header
// "--- <class>::<method>" and returns the test name.
func TriggerHeader(line string) (string, bool) {
	line = strings.TrimRight(line, "\r")
	if !strings.HasPrefix(line, "--- ") {
		return "", false
	}
	name := strings.TrimSpace(line[4:])
	if i := strings.Index(name, "::"); i <= 0 || i+2 >= len(name) {
		return "", false
	}
	return name, true
}

// readDirLayout reads dir-layout.csv (revision,source dir,test dir). It is
// optional metadata, so a missing or malformed file yields what could be
// read.
func readDirLayout(file string) map[string][2]string {
	out := map[string][2]string{}
	data, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Split(strings.TrimSpace(l), ",")
		if len(f) == 3 {
			out[f[0]] = [2]string{f[1], f[2]}
		}
	}
	return out
}
