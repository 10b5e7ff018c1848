package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/output"
)

func TestTableMarkdown(t *testing.T) {
	tb := &Table{Caption: "Verdicts", Header: []string{"repo", "p", "present"}, Note: "α = 0.05"}
	tb.AddRow("apache/commons-lang", 0.00123, true)
	tb.AddRow("a|b", 0.5, false)
	got := tb.Markdown()
	golden.CheckString(t, filepath.Join("testdata", "table.md"), got)
}

func TestRenderSelfContained(t *testing.T) {
	plots := demoPlots(t)
	p := &Page{Title: "Audit <report>", Subtitle: "demo", Generated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Nav: []Link{{Text: "Synth", Href: "synth.html"}}}
	tb := &Table{Header: []string{"x"}}
	tb.AddRow("<script>alert(1)</script>")
	p.AddSection("summary", "Summary").Add(&KeyValues{Items: []KV{{"AUC", "0.91"}}}, &Paragraph{Text: "a & b"}, tb)
	p.AddSection("plots", "Plots").Add(&Plot{Caption: "roc", SVG: plots[0]}, &Plot{Caption: "strip", SVG: plots[1]},
		&Plot{Caption: "ecdf", SVG: plots[2]}, &Plot{Caption: "bars", SVG: plots[3]})
	var b bytes.Buffer
	if err := Render(&b, p); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"<nav", `href="#summary"`, `href="synth.html"`, "Audit &lt;report&gt;", "&lt;script&gt;alert(1)", "<svg", "table.sortable", "2026-01-02T03:04:05Z"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<?xml", "http://", "https://", "<link ", "src=\""} {
		if strings.Contains(strings.ReplaceAll(html, "http://www.w3.org", ""), bad) {
			t.Errorf("report is not self-contained: has %q", bad)
		}
	}
	if strings.Count(html, "<svg") != 4 {
		t.Errorf("want 4 inline SVGs, got %d", strings.Count(html, "<svg"))
	}
	// Each plot must be well-formed XML on its own.
	for _, s := range plots {
		checkWellFormed(t, s)
	}
}

// demoPlots draws one plot of each kind: ROC, strip, ECDF lines and bars.
func demoPlots(t *testing.T) [][]byte {
	t.Helper()
	roc, err := ROC("ROC", []Series{{Label: "BenchChecker", X: []float64{0, 0.1, 1}, Y: []float64{0, 0.8, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	strip, err := Strip("p-values", "p", []string{"a", "b"}, [][]float64{{0.01, 0.2}, {1e-6}}, 0.05, true)
	if err != nil {
		t.Fatal(err)
	}
	ecdf, err := Lines("ECDF", "tokens", "F", []Series{{Label: "corpus", X: []float64{1, 2, 3}, Y: []float64{1. / 3, 2. / 3, 1}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	bars, err := Bars("drop", "%", []string{"easy", "hard"}, []Series{{Label: "all", Y: []float64{50, 20}}, {Label: "clean", Y: []float64{40, 18}}})
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{roc, strip, ecdf, bars}
}

// checkWellFormed fails unless s is well-formed XML.
func checkWellFormed(t *testing.T, s []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(s))
	for {
		_, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("plot SVG is not well-formed: %v", err)
			}
			return
		}
	}
}

func TestPlotErrors(t *testing.T) {
	if _, err := Lines("x", "", "", []Series{{Label: "bad", X: []float64{1}, Y: nil}}, false); err == nil {
		t.Error("mismatched series accepted")
	}
	if _, err := Strip("x", "", []string{"a"}, nil, math.NaN(), false); err == nil {
		t.Error("mismatched strip accepted")
	}
	if _, err := Bars("x", "", []string{"a", "b"}, []Series{{Y: []float64{1}}}); err == nil {
		t.Error("mismatched bars accepted")
	}
}

// TestBarsLabelsAndNA checks that every bar carries its value and that a
// missing value (NaN) draws no bar but an "n/a" mark, negative values
// included in the range.
func TestBarsLabelsAndNA(t *testing.T) {
	svg, err := Bars("drop", "%", []string{"easy", "hard"}, []Series{{Label: "m1", Y: []float64{26.7, math.NaN()}}, {Label: "m2", Y: []float64{-12.5, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">26.7<", ">n/a<", ">-12.5<", ">3<", ">m1<", ">m2<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("bar plot lacks %s", want)
		}
	}
}

// TestStripTicksLabelled: a log-scale strip plot whose values span less
// than a decade still has at least two labelled ticks.
func TestStripTicksLabelled(t *testing.T) {
	for _, vals := range [][][]float64{{{0.5}, {0.9}}, {{1}, {0.0297}, {1}}, {{1e-5}, {0.8}}} {
		b, err := Strip("p-values", "p-value (log scale)", []string{"a", "b", "c"}[:len(vals)], vals, 0.05, true)
		if err != nil {
			t.Fatal(err)
		}
		nums := 0
		for _, m := range regexp.MustCompile(`(?s)<text[^>]*>\s*([-+]?[\d.]+(?:e[-+]?\d+)?)\s*</text>`).FindAllStringSubmatch(string(b), -1) {
			_ = m
			nums++
		}
		if nums < 2 {
			t.Errorf("values %v: %d numeric tick labels, want at least 2", vals, nums)
		}
	}
}

// warningRecordSummary reports whether msgs are a warning, a record and
// a summary, in that order.
func warningRecordSummary(msgs []output.Message) bool {
	return len(msgs) == 3 && msgs[0].Warning != nil && msgs[1].Record != nil && msgs[2].Summary != nil
}

// TestHTMLHandler: the HTML handler keeps the stream's warnings, records
// and summary (not its progress), builds the page from them at Close and
// writes it; a build error is returned as it is.
func TestHTMLHandler(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.html")
	var got []output.Message
	h := &HTML{Path: path, Of: "dir", Build: func(msgs []output.Message) (*Page, error) {
		got = msgs
		p := &Page{Title: "t"}
		p.AddSection("s", "S").Add(&Paragraph{Text: fmt.Sprint(len(msgs), " messages")})
		return p, nil
	}}
	var sent output.Handler = h
	if err := errors.Join(sent.Progress(output.Progress{Step: "x"}), sent.Warning(output.Warning{Message: "w"}),
		sent.Record(output.Record{Kind: "k", Value: 1}), sent.Summary(output.Summary{Kind: "run", Value: 2}), h.Close()); err != nil {
		t.Fatal(err)
	}
	if !warningRecordSummary(got) {
		t.Errorf("Build got %+v, want the warning, the record and the summary", got)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), "<p>3 messages</p>") {
		t.Errorf("written page (%v) lacks the built paragraph:\n%s", err, data)
	}
	bad := errors.New("bad stream")
	h = &HTML{Path: filepath.Join(t.TempDir(), "x.html"), Build: func([]output.Message) (*Page, error) { return nil, bad }}
	if err := h.Close(); err != bad {
		t.Errorf("Close = %v, want the build error", err)
	}
}
