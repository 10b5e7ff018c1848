package demo

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/pipeline/pipelinetest"
	"github.com/benchforge/benchforge/internal/audit/repos"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
)

// chromium finds the headless browser: $BENCHFORGE_CHROMIUM, then
// /usr/bin/chromium (Debian's chromium package), then PATH. When none is
// found the test is skipped locally and fails under CI=true, where .ci/run
// installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("BENCHFORGE_CHROMIUM"), "/usr/bin/chromium"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found under CI=true: install Debian's chromium package (apt-get install -y chromium)")
	}
	t.Skip("chromium not found (apt-get install -y chromium); set CI=true to make this a failure")
	return ""
}

// probeScript is appended to a copy of each page: once the page has loaded
// it clicks every sortable table header twice (ascending, then descending),
// checks that the first column's order changed as asked, and logs a
// summary line the test reads from Chromium's console log.
const probeScript = `<script>
window.addEventListener("load", function () {
  var tables = document.querySelectorAll("table.sortable"), heads = 0, sorted = 0;
  tables.forEach(function (t) {
    var ths = t.querySelectorAll("th");
    ths.forEach(function (th) { th.click(); th.click(); heads++; });
    if (ths.length > 0) {
      ths[0].click();
      if (ths[0].getAttribute("aria-sort") === "ascending") sorted++;
    }
  });
  // A plot has tick labels when at least two of its texts are numbers or
  // it is a bar/strip chart with category labels (three or more texts).
  var svgs = document.querySelectorAll("svg"), unticked = 0;
  svgs.forEach(function (s) {
    var texts = Array.prototype.map.call(s.querySelectorAll("text"), function (x) { return x.textContent.trim(); });
    var numeric = texts.filter(function (x) { return /^[-+−]?[\d.]+(e[-+]?\d+)?%?$/.test(x) || /^10[-−⁻⁰¹²³⁴⁵⁶⁷⁸⁹\d]*$/.test(x); }).length;
    if (numeric < 2) unticked++;
  });
  var d = document.documentElement, wide = d.scrollWidth > d.clientWidth ? 1 : 0;
  console.log("BENCHFORGE-PROBE tables=" + tables.length + " headers=" + heads + " sorted=" + sorted +
    " svgs=" + svgs.length + " navlinks=" + document.querySelectorAll("nav a").length +
    " unticked=" + unticked + " hscroll=" + wide + " scrollwidth=" + d.scrollWidth + " details=" + document.querySelectorAll("details").length);
});
</script>
</body>`

// consoleLine matches a console message in Chromium's stderr log:
// [pid:tid:date:INFO:CONSOLE:1] "message", source: file:///… (1)
var consoleLine = regexp.MustCompile(`:CONSOLE(?:\(\d+\)|:\d+)\] "(.*)", source: (\S*)`)

// probeResult is what the page's probe reported.
type probeResult struct {
	tables, headers, sorted, svgs, navlinks int
	unticked, hscroll, scrollwidth, details int
}

// parseConsole returns the console errors (uncaught exceptions and
// console.error output) and the probe line of a Chromium stderr log.
func parseConsole(log string) (errors []string, probe *probeResult) {
	for _, l := range strings.Split(log, "\n") {
		m := consoleLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		msg := m[1]
		if strings.HasPrefix(msg, "BENCHFORGE-PROBE ") {
			p := &probeResult{}
			fields := map[string]*int{"tables": &p.tables, "headers": &p.headers, "sorted": &p.sorted, "svgs": &p.svgs, "navlinks": &p.navlinks,
				"unticked": &p.unticked, "hscroll": &p.hscroll, "scrollwidth": &p.scrollwidth, "details": &p.details}
			for _, f := range strings.Fields(strings.TrimPrefix(msg, "BENCHFORGE-PROBE ")) {
				k, v, _ := strings.Cut(f, "=")
				if dst, ok := fields[k]; ok {
					*dst, _ = strconv.Atoi(v)
				}
			}
			probe = p
			continue
		}
		if strings.Contains(msg, "Uncaught") || strings.Contains(l, ":ERROR:CONSOLE") {
			errors = append(errors, msg+" ("+m[2]+")")
		}
	}
	return errors, probe
}

func TestParseConsole(t *testing.T) {
	log := `[1:1:1130/100450.785366:INFO:CONSOLE:1] "BENCHFORGE-PROBE tables=3 headers=12 sorted=3 svgs=2 navlinks=8", source: file:///x.html (1)
[1:1:1130/100450.786479:INFO:CONSOLE:1] "Uncaught ReferenceError: undefinedFn is not defined", source: file:///x.html (1)
[1:1:1130/100450.786479:ERROR:dbus/bus.cc:405] Failed to connect to the bus
[1:1:1130/100450.786479:INFO:CONSOLE(7)] "plain log", source: file:///x.html (7)`
	errs, p := parseConsole(log)
	if len(errs) != 1 || !strings.Contains(errs[0], "undefinedFn") {
		t.Errorf("errors = %q, want the one Uncaught ReferenceError", errs)
	}
	if p == nil || *p != (probeResult{tables: 3, headers: 12, sorted: 3, svgs: 2, navlinks: 8}) {
		t.Errorf("probe = %+v", p)
	}
}

// nonWhite counts pixels that are not (nearly) white.
func nonWhite(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return n
}

// TestReportInChromium renders every page of a demo run in headless
// Chromium, fails on console errors (a broken table-sort script shows as an
// "Uncaught" line) and on a blank screenshot, and checks that sorting works
// and the plots and navigation are there. BENCHFORGE_SCREENSHOTS=DIR keeps
// the screenshots.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	dir, _ := cheapDemo(t)
	keep := os.Getenv("BENCHFORGE_SCREENSHOTS")
	pages := []string{PageOverview, PageAudit, PageSynth, PageFidelity, PageEvaluation}
	var wg sync.WaitGroup
	for _, page := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(page, func(t *testing.T) { checkPage(t, bin, dir, page, keep, 5, false) })
		}()
	}
	wg.Wait()
}

// TestAuditReportInChromium renders the report of a real `audit run`
// (the pipeline fixture: four samples, one without a clone) in headless
// Chromium at 1400 px: no horizontal page scroll, tick labels on every
// plot, each per-sample row expandable to its evidence.
func TestAuditReportInChromium(t *testing.T) {
	bin := chromium(t)
	fx := pipelinetest.New(t)
	out := t.TempDir()
	sess, err := llm.NewSession(llm.SessionOptions{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	target, err := sess.Open(fx.TargetSpec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := repos.New(repos.Options{Dir: fx.ReposDir})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	cutoff, _ := time.Parse("2006-01-02", pipelinetest.Cutoff)
	if _, err := pipeline.Run(context.Background(), pipeline.Options{Benchmark: fx.Benchmark, Source: res, Target: target, Cutoff: cutoff,
		MaxRepoFrac: 0.3, MaxQueries: 40, MaxTokens: 6, Seed: 1, OutDir: out, LLMManifest: sess.Manifest}); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(out, pipeline.FileReport))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"unjudged", "n/a", "<details>", "block 1:"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	checkPage(t, bin, out, pipeline.FileReport, os.Getenv("BENCHFORGE_SCREENSHOTS"), 3, true)
}

func checkPage(t *testing.T, bin, dir, page, keep string, minNav int, wantDetails bool) {
	html, err := os.ReadFile(filepath.Join(dir, page))
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{`src="http`, `href="http`, `<link rel="stylesheet"`, `<script src=`} {
		if bytes.Contains(html, []byte(ext)) {
			t.Errorf("%s loads an external asset (%s): reports must be self-contained", page, ext)
		}
	}
	if bytes.Count(html, []byte("</body>")) != 1 {
		t.Fatalf("%s: want one </body>", page)
	}
	work := t.TempDir()
	probed := filepath.Join(work, page)
	if err := os.WriteFile(probed, bytes.Replace(html, []byte("</body>"), []byte(probeScript), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(work, strings.TrimSuffix(page, ".html")+".png")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(work, "profile"), "--enable-logging=stderr", "--v=0",
		"--screenshot="+shot, "--window-size=1400,2000", "file://"+probed)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium on %s: %v\n%s", page, err, tail(stderr.String(), 40))
	}
	errs, probe := parseConsole(stderr.String())
	for _, e := range errs {
		t.Errorf("%s: console error: %s", page, e)
	}
	if probe == nil {
		t.Fatalf("%s: the probe script did not report (scripts did not run?)\n%s", page, tail(stderr.String(), 40))
	}
	if probe.tables == 0 || probe.sorted != probe.tables {
		t.Errorf("%s: %d sortable tables, %d sorted by a header click: %+v", page, probe.tables, probe.sorted, *probe)
	}
	// At 1400 px no page scrolls sideways (wide tables scroll in their own
	// box), and every plot has tick labels.
	if probe.hscroll != 0 {
		t.Errorf("%s: the page scrolls horizontally at 1400 px (scroll width %d)", page, probe.scrollwidth)
	}
	if probe.unticked != 0 {
		t.Errorf("%s: %d of %d plots have no tick labels", page, probe.unticked, probe.svgs)
	}
	if wantDetails && probe.details == 0 {
		t.Errorf("%s: the per-sample verdicts have no expandable evidence", page)
	}
	if probe.navlinks < minNav {
		t.Errorf("%s: %d navigation links, want %d at least", page, probe.navlinks, minNav)
	}
	// The overview carries the re-scoring's per-difficulty drop plot.
	if page == PageOverview || page == PageAudit || page == PageFidelity {
		if probe.svgs == 0 {
			t.Errorf("%s: no SVG plot rendered", page)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("%s: no screenshot: %v", page, err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: screenshot: %v", page, err)
	}
	b := img.Bounds()
	if n, total := nonWhite(img), b.Dx()*b.Dy(); n < total/100 {
		t.Errorf("%s: screenshot is nearly blank: %d of %d pixels not white", page, n, total)
	}
	if keep != "" {
		if err := os.MkdirAll(keep, 0o755); err == nil {
			data, _ := os.ReadFile(shot)
			os.WriteFile(filepath.Join(keep, filepath.Base(shot)), data, 0o644)
		}
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprint(strings.Join(lines, "\n"))
}
