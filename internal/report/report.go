// Package report owns benchforge's human-readable outputs: one
// self-contained HTML page (no external assets: CSS, the table-sorting
// script and SVG plots are inline) and Markdown tables. Reports are
// rendered from records that were already written as JSONL, never from
// live state, so any report can be regenerated without a model call.
//
// HTML is the page's output.Handler: fed the same message stream as the
// JSON and text handlers (an audit directory replayed by the pipeline), it
// builds and writes the page at the end of the stream.
//
// A Page is a title, a navigation bar and sections; a section holds
// blocks: paragraphs, key/value summaries, sortable tables and SVG plots
// (plots.go draws them with gonum/plot).
package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

//go:embed templates/*
var templates embed.FS

var pageTmpl = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"isTable": func(b Block) bool { _, ok := b.(*Table); return ok },
}).ParseFS(templates, "templates/page.html"))

// Page is one HTML report.
type Page struct {
	Title     string
	Subtitle  string
	Generated time.Time
	// Nav links other pages or anchors; sections are linked automatically.
	Nav      []Link
	Sections []*Section
}

// Link is a navigation entry.
type Link struct {
	Text, Href string
}

// Section is a titled part of a page with an anchor id.
type Section struct {
	ID     string
	Title  string
	Blocks []Block
}

// Block is one element of a section: *Paragraph, *KeyValues, *Table or
// *Plot.
type Block interface{ html() (template.HTML, error) }

// Add appends blocks to the section and returns it.
func (s *Section) Add(b ...Block) *Section {
	s.Blocks = append(s.Blocks, b...)
	return s
}

// AddSection appends a new section to the page and returns it.
func (p *Page) AddSection(id, title string) *Section {
	s := &Section{ID: id, Title: title}
	p.Sections = append(p.Sections, s)
	return s
}

// Paragraph is plain text (escaped).
type Paragraph struct{ Text string }

func (p *Paragraph) html() (template.HTML, error) {
	return template.HTML("<p>" + template.HTMLEscapeString(p.Text) + "</p>"), nil
}

// KeyValues is a short summary list, e.g. "AUC: 0.91".
type KeyValues struct {
	Items []KV
}

// KV is one summary item.
type KV struct{ Key, Value string }

func (k *KeyValues) html() (template.HTML, error) {
	var b strings.Builder
	b.WriteString(`<dl class="kv">`)
	for _, it := range k.Items {
		fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", template.HTMLEscapeString(it.Key), template.HTMLEscapeString(it.Value))
	}
	b.WriteString("</dl>")
	return template.HTML(b.String()), nil
}

// Table is a sortable table. Cells that parse as numbers sort
// numerically.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	// Note is printed under the table (e.g. "∗ two-sided KS p < 0.05").
	Note string
	// Details, when set, makes each row expandable: Details[i] (plain
	// text, shown preformatted) is row i's evidence, in a last column
	// "evidence" (Markdown leaves it out).
	Details []string
}

// AddRow appends a row, formatting each cell with Cell.
func (t *Table) AddRow(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = Cell(c)
	}
	t.Rows = append(t.Rows, row)
}

// Cell formats a value for a table: floats with three significant
// digits, everything else with %v.
func Cell(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("%.3g", x)
	case float32:
		return fmt.Sprintf("%.3g", x)
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

func (t *Table) html() (template.HTML, error) {
	var b strings.Builder
	// The wrapper scrolls a wide table inside its own box, so the page
	// never scrolls sideways.
	b.WriteString(`<div class="table-wrap"><table class="sortable">`)
	if t.Caption != "" {
		fmt.Fprintf(&b, "<caption>%s</caption>", template.HTMLEscapeString(t.Caption))
	}
	t.writeHead(&b)
	b.WriteString("<tbody>")
	for i, r := range t.Rows {
		t.writeRow(&b, i, r)
	}
	b.WriteString("</tbody></table></div>")
	if t.Note != "" {
		fmt.Fprintf(&b, `<p class="note">%s</p>`, template.HTMLEscapeString(t.Note))
	}
	return template.HTML(b.String()), nil
}

// writeHead writes the header row, with the evidence column when rows
// have details.
func (t *Table) writeHead(b *strings.Builder) {
	b.WriteString("<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(b, `<th scope="col" tabindex="0">%s</th>`, template.HTMLEscapeString(h))
	}
	if t.Details != nil {
		b.WriteString(`<th scope="col" tabindex="0">evidence</th>`)
	}
	b.WriteString("</tr></thead>")
}

// writeRow writes row i, its details (if any) in an expandable last cell.
func (t *Table) writeRow(b *strings.Builder, i int, r []string) {
	b.WriteString("<tr>")
	for _, c := range r {
		fmt.Fprintf(b, "<td>%s</td>", template.HTMLEscapeString(c))
	}
	if t.Details != nil {
		d := ""
		if i < len(t.Details) {
			d = t.Details[i]
		}
		if d == "" {
			b.WriteString("<td></td>")
		} else {
			fmt.Fprintf(b, `<td><details><summary>show</summary><pre class="evidence">%s</pre></details></td>`, template.HTMLEscapeString(d))
		}
	}
	b.WriteString("</tr>")
}

// Markdown renders the table as GitHub-flavoured Markdown.
func (t *Table) Markdown() string {
	var b strings.Builder
	if t.Caption != "" {
		fmt.Fprintf(&b, "**%s**\n\n", t.Caption)
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Header)
	b.WriteString("|")
	for range t.Header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	if t.Note != "" {
		fmt.Fprintf(&b, "\n%s\n", t.Note)
	}
	return b.String()
}

// Plot is an inline SVG figure with a caption.
type Plot struct {
	Caption string
	SVG     []byte
}

func (p *Plot) html() (template.HTML, error) {
	svg := p.SVG
	// Drop the XML prolog: it is not allowed inside HTML.
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:]
	}
	return template.HTML(`<figure>` + string(svg) + `<figcaption>` +
		template.HTMLEscapeString(p.Caption) + `</figcaption></figure>`), nil
}

type renderedSection struct {
	ID, Title string
	Blocks    []template.HTML
}

// Render writes the page as one self-contained HTML document.
func Render(w io.Writer, p *Page) error {
	data := struct {
		*Page
		Rendered []renderedSection
		Stamp    string
	}{Page: p}
	if !p.Generated.IsZero() {
		data.Stamp = p.Generated.UTC().Format(time.RFC3339)
	}
	for _, s := range p.Sections {
		rs := renderedSection{ID: s.ID, Title: s.Title}
		for _, b := range s.Blocks {
			h, err := b.html()
			if err != nil {
				return fmt.Errorf("render report section %s: %w", s.ID, err)
			}
			rs.Blocks = append(rs.Blocks, h)
		}
		data.Rendered = append(data.Rendered, rs)
	}
	if err := pageTmpl.Execute(w, data); err != nil {
		return fmt.Errorf("render report %q: %w", p.Title, err)
	}
	return nil
}

// SmallSampleMarkdown is the Markdown warning block for groups measured on
// too few pairs ("" when there are none).
func SmallSampleMarkdown(warnings []string) string {
	if len(warnings) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("**⚠ Small samples** — figures below are computed on fewer than 30 pairs per group for:\n\n")
	for _, w := range warnings {
		b.WriteString("- ⚠ " + w + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// SmallSampleSection adds the small-sample warnings as the page's first
// section (nothing when there are none).
func SmallSampleSection(p *Page, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	sec := p.AddSection("small-samples", "⚠ Small samples")
	sec.Add(&Paragraph{Text: "Figures computed on fewer than 30 pairs per group are shown but unreliable:"})
	for _, w := range warnings {
		sec.Add(&Paragraph{Text: "⚠ " + w})
	}
}
