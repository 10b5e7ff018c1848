package bench

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// reverseDiff turns a unified diff (git or Subversion flavour) around, so
// that it goes from the new side to the old: headers and paths swap, "-"
// and "+" lines swap, and the hunk ranges swap. Within each run of changed
// lines the new removals are written before the new additions, which is
// what `git diff -R` prints. Defects4J stores its patches fixed → buggy;
// reverseDiff gives the developer's fix. It is deliberately small and
// private: internal/diff will replace it with a full diff model.
func reverseDiff(text string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	r := &reverser{pending: map[string]pendingHeader{}}
	for i, raw := range lines {
		if err := r.line(i+1, raw); err != nil {
			return "", err
		}
	}
	r.flush()
	if r.inHunk() {
		return "", fmt.Errorf("end of diff inside a hunk: %d old and %d new lines missing", r.oldLeft, r.newLeft)
	}
	for _, p := range headerPairs {
		if h, ok := r.pending[p.first]; ok {
			return "", fmt.Errorf("%q header without its partner line", truncate(h.body, 40))
		}
	}
	return r.out.String(), nil
}

// reverser is the state of reverseDiff.
type reverser struct {
	out              strings.Builder
	pending          map[string]pendingHeader // by headerPairs' first: waiting for its partner
	oldLeft, newLeft int                      // lines of the current hunk still to read, per side
	runMinus         []string                 // current run of changed lines, original signs
	runPlus          []string
	lastRun          *[]string // run the previous changed line went to, for "\ No newline"
}

// pendingHeader is the first line of a header pair and its line ending.
type pendingHeader struct{ body, eol string }

// headerPairs are the header lines that come in pairs and swap payloads.
var headerPairs = []struct{ first, second string }{
	{"old mode ", "new mode "}, {"rename from ", "rename to "}, {"--- ", "+++ "},
}

func (r *reverser) inHunk() bool { return r.oldLeft > 0 || r.newLeft > 0 }

// flush writes the current run of changed lines with their signs swapped,
// the new removals first.
func (r *reverser) flush() {
	for _, l := range r.runPlus {
		r.out.WriteString("-" + l[1:])
	}
	for _, l := range r.runMinus {
		r.out.WriteString("+" + l[1:])
	}
	r.runMinus, r.runPlus, r.lastRun = r.runMinus[:0], r.runPlus[:0], nil
}

// line reverses line no, raw with its line ending: a hunk body line (or a
// "\ No newline" marker after the first line) or else a header line.
func (r *reverser) line(no int, raw string) error {
	body := strings.TrimRight(raw, "\r\n")
	if r.inHunk() || (strings.HasPrefix(body, `\`) && no > 1) {
		done, err := r.hunkLine(no, raw, body)
		if err != nil || done {
			return err
		}
	}
	r.flush()
	return r.headerLine(no, raw, body)
}

// hunkLine takes line no of a hunk body (or a "\ No newline" marker);
// done is false when the line is not part of the hunk.
func (r *reverser) hunkLine(no int, raw, body string) (done bool, err error) {
	switch {
	case strings.HasPrefix(body, `\`):
		if r.lastRun != nil {
			(*r.lastRun)[len(*r.lastRun)-1] += raw
		} else {
			r.out.WriteString(raw)
		}
	case strings.HasPrefix(body, "-") && r.oldLeft > 0:
		r.runMinus = append(r.runMinus, raw)
		r.lastRun = &r.runMinus
		r.oldLeft--
	case strings.HasPrefix(body, "+") && r.newLeft > 0:
		r.runPlus = append(r.runPlus, raw)
		r.lastRun = &r.runPlus
		r.newLeft--
	case (body == "" || strings.HasPrefix(body, " ")) && r.oldLeft > 0 && r.newLeft > 0:
		r.flush()
		r.out.WriteString(raw)
		r.oldLeft--
		r.newLeft--
	case r.inHunk():
		return false, fmt.Errorf("line %d: hunk ends early: %d old and %d new lines missing before %q", no, r.oldLeft, r.newLeft, truncate(body, 40))
	default:
		return false, nil
	}
	return true, nil
}

// headerLine reverses line no outside a hunk body.
func (r *reverser) headerLine(no int, raw, body string) error {
	eol := raw[len(body):]
	switch {
	case strings.HasPrefix(body, "@@ "):
		h, err := reverseHunkHeader(body)
		if err != nil {
			return fmt.Errorf("line %d: %v", no, err)
		}
		r.oldLeft, r.newLeft = h.oldCount, h.newCount
		r.out.WriteString(h.text + eol)
	case strings.HasPrefix(body, "diff --git "):
		r.out.WriteString(reverseGitLine(body) + eol)
	case strings.HasPrefix(body, "index "):
		r.out.WriteString(reverseIndexLine(body) + eol)
	case strings.HasPrefix(body, "new file mode "):
		r.out.WriteString("deleted file mode " + strings.TrimPrefix(body, "new file mode ") + eol)
	case strings.HasPrefix(body, "deleted file mode "):
		r.out.WriteString("new file mode " + strings.TrimPrefix(body, "deleted file mode ") + eol)
	case strings.HasPrefix(body, "copy from "), strings.HasPrefix(body, "copy to "), strings.HasPrefix(body, "GIT binary patch"):
		return fmt.Errorf("line %d: %q cannot be reversed as text", no, truncate(body, 40))
	case strings.HasPrefix(body, "Binary files ") && strings.HasSuffix(body, " differ"):
		r.out.WriteString(reverseBinaryLine(body, raw, eol))
	default:
		return r.pairLine(no, raw, body, eol)
	}
	return nil
}

// reverseBinaryLine swaps the names of "Binary files A and B differ".
func reverseBinaryLine(body, raw, eol string) string {
	mid := strings.TrimSuffix(strings.TrimPrefix(body, "Binary files "), " differ")
	a, b, ok := strings.Cut(mid, " and ")
	if !ok {
		return raw
	}
	return "Binary files " + swapPrefix(b, "b/", "a/") + " and " + swapPrefix(a, "a/", "b/") + " differ" + eol
}

// pairLine holds the first line of a header pair until its partner comes,
// then writes both with their payloads swapped; other lines are copied.
func (r *reverser) pairLine(no int, raw, body, eol string) error {
	for _, p := range headerPairs {
		if strings.HasPrefix(body, p.first) {
			r.pending[p.first] = pendingHeader{body, eol}
			return nil
		}
		if !strings.HasPrefix(body, p.second) {
			continue
		}
		a, ok := r.pending[p.first]
		if !ok {
			return fmt.Errorf("line %d: %q without a preceding %q line", no, truncate(body, 40), p.first)
		}
		delete(r.pending, p.first)
		aPayload := strings.TrimPrefix(a.body, p.first)
		bPayload := strings.TrimPrefix(body, p.second)
		if p.first == "--- " {
			aPayload, bPayload = swapPrefix(bPayload, "b/", "a/"), swapPrefix(aPayload, "a/", "b/")
		} else {
			aPayload, bPayload = bPayload, aPayload
		}
		r.out.WriteString(p.first + aPayload + a.eol + p.second + bPayload + eol)
		return nil
	}
	r.out.WriteString(raw)
	return nil
}

// swapPrefix rewrites a header path that carries git's from-prefix into
// the to-prefix (a/x → b/x); /dev/null and unprefixed paths stay.
func swapPrefix(p, from, to string) string {
	if strings.HasPrefix(p, from) {
		return to + strings.TrimPrefix(p, from)
	}
	return p
}

var hunkHeaderRE = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)

type hunkHeader struct {
	text               string
	oldCount, newCount int
}

// reverseHunkHeader swaps the ranges of "@@ -a,b +c,d @@ section" and
// returns the counts of the original, which say how many old/new lines the
// hunk body holds.
func reverseHunkHeader(line string) (hunkHeader, error) {
	m := hunkHeaderRE.FindStringSubmatch(line)
	if m == nil {
		return hunkHeader{}, fmt.Errorf("malformed hunk header %q", truncate(line, 40))
	}
	count := func(s string) (int, error) {
		if s == "" {
			return 1, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n > 1<<24 {
			return 0, fmt.Errorf("hunk line count %q out of range", s)
		}
		return n, nil
	}
	oc, err := count(m[2])
	if err != nil {
		return hunkHeader{}, err
	}
	nc, err := count(m[4])
	if err != nil {
		return hunkHeader{}, err
	}
	rng := func(start, n string) string {
		if n == "" {
			return start
		}
		return start + "," + n
	}
	text := "@@ -" + rng(m[3], m[4]) + " +" + rng(m[1], m[2]) + " @@" + m[5]
	return hunkHeader{text: text, oldCount: oc, newCount: nc}, nil
}

// reverseGitLine swaps the paths of "diff --git a/X b/Y".
func reverseGitLine(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if !strings.HasPrefix(rest, "a/") {
		return line
	}
	// Find the " b/" that splits rest; for an unrenamed file both halves
	// are equal, which disambiguates paths that contain " b/".
	split := -1
	for i := 0; ; {
		j := strings.Index(rest[i:], " b/")
		if j < 0 {
			break
		}
		k := i + j
		if split < 0 {
			split = k
		}
		if rest[2:k] == rest[k+3:] {
			split = k
			break
		}
		i = k + 1
	}
	if split < 0 {
		return line
	}
	a, b := rest[2:split], rest[split+3:]
	return "diff --git a/" + b + " b/" + a
}

// reverseIndexLine swaps the blob ids of "index A..B [mode]".
func reverseIndexLine(line string) string {
	fields := strings.SplitN(strings.TrimPrefix(line, "index "), " ", 2)
	a, b, ok := strings.Cut(fields[0], "..")
	if !ok {
		return line
	}
	out := "index " + b + ".." + a
	if len(fields) == 2 {
		out += " " + fields[1]
	}
	return out
}
