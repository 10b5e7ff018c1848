package output

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
)

// Text is the terminal handler: warnings on Stderr as "warning: ...",
// progress on Stderr only when Live (Stderr is a terminal — a log file
// would fill with bars), the summary through Render on Stdout.
type Text struct {
	Stdout, Stderr io.Writer
	// Name prefixes progress lines and names progress bars ("audit run").
	Name string
	// Live shows progress; the caller sets it when Stderr is a terminal.
	Live bool
	// Render prints the summary; nil prints nothing.
	Render func(w io.Writer, s Summary) error
	// RenderRecord prints a record as it lands; nil keeps records silent
	// (the summary says what they came to).
	RenderRecord func(w io.Writer, r Record) error

	mu  sync.Mutex
	bar *progressbar.ProgressBar
	// step is the step the bar counts.
	step string
}

// Progress draws a bar for a counted step with no message (Total > 0) and
// a line "Name: Step: Message" for any other; a step's bar is cleared when
// it completes.
func (t *Text) Progress(p Progress) error {
	if !t.Live {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.Total <= 0 || p.Message != "" {
		msg := p.Step
		if p.Message != "" {
			msg += ": " + p.Message
		}
		_, err := fmt.Fprintf(t.Stderr, "%s: %s\n", t.Name, msg)
		return err
	}
	if t.bar == nil || t.step != p.Step {
		desc := strings.TrimSpace(t.Name + " " + p.Step)
		t.bar = progressbar.NewOptions(p.Total, progressbar.OptionSetWriter(t.Stderr),
			progressbar.OptionSetDescription(desc), progressbar.OptionClearOnFinish())
		t.step = p.Step
	}
	return t.bar.Set(p.Done)
}

func (t *Text) Warning(w Warning) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := fmt.Fprintf(t.Stderr, "warning: %s\n", w.Message)
	return err
}

func (t *Text) Record(r Record) error {
	if t.RenderRecord == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.RenderRecord(t.Stdout, r)
}

func (t *Text) Summary(s Summary) error {
	if t.Render == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.Render(t.Stdout, s)
}

// Table renders rows as aligned text columns: the one table renderer of
// the text output (the HTML and Markdown report have report.Table).
type Table struct {
	Header []string
	Rows   [][]string
}

// Add appends a row; a float64 cell prints with 3 significant digits, any
// other cell with fmt.Sprint (format it first for another precision).
func (t *Table) Add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		switch v := c.(type) {
		case float64:
			row[i] = fmt.Sprintf("%.3g", v)
		default:
			row[i] = fmt.Sprint(v)
		}
	}
	t.Rows = append(t.Rows, row)
}

// Len is the number of rows added.
func (t *Table) Len() int { return len(t.Rows) }

// Write prints the header and rows, columns two spaces apart.
func (t *Table) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.Header, "\t"))
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}
