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
	var (
		out      strings.Builder
		pending  = map[string]string{} // first line of a header pair, waiting for its partner
		oldLeft  int                   // lines of the current hunk still to read, old side
		newLeft  int
		runMinus []string // current run of changed lines, original signs
		runPlus  []string
		lastRun  *[]string // run the previous changed line went to, for "\ No newline"
	)
	flush := func() {
		for _, l := range runPlus {
			out.WriteString("-" + l[1:])
		}
		for _, l := range runMinus {
			out.WriteString("+" + l[1:])
		}
		runMinus, runPlus, lastRun = runMinus[:0], runPlus[:0], nil
	}
	for i, raw := range lines {
		body := strings.TrimRight(raw, "\r\n")
		eol := raw[len(body):]
		if oldLeft > 0 || newLeft > 0 || (strings.HasPrefix(body, `\`) && i > 0) {
			switch {
			case strings.HasPrefix(body, `\`):
				if lastRun != nil {
					(*lastRun)[len(*lastRun)-1] += raw
				} else {
					out.WriteString(raw)
				}
				continue
			case strings.HasPrefix(body, "-") && oldLeft > 0:
				runMinus = append(runMinus, raw)
				lastRun = &runMinus
				oldLeft--
				continue
			case strings.HasPrefix(body, "+") && newLeft > 0:
				runPlus = append(runPlus, raw)
				lastRun = &runPlus
				newLeft--
				continue
			case (body == "" || strings.HasPrefix(body, " ")) && oldLeft > 0 && newLeft > 0:
				flush()
				out.WriteString(raw)
				oldLeft--
				newLeft--
				continue
			case oldLeft > 0 || newLeft > 0:
				return "", fmt.Errorf("line %d: hunk ends early: %d old and %d new lines missing before %q", i+1, oldLeft, newLeft, truncate(body, 40))
			}
		}
		flush()
		switch {
		case strings.HasPrefix(body, "@@ "):
			h, err := reverseHunkHeader(body)
			if err != nil {
				return "", fmt.Errorf("line %d: %v", i+1, err)
			}
			oldLeft, newLeft = h.oldCount, h.newCount
			out.WriteString(h.text + eol)
		case strings.HasPrefix(body, "diff --git "):
			out.WriteString(reverseGitLine(body) + eol)
		case strings.HasPrefix(body, "index "):
			out.WriteString(reverseIndexLine(body) + eol)
		case strings.HasPrefix(body, "new file mode "):
			out.WriteString("deleted file mode " + strings.TrimPrefix(body, "new file mode ") + eol)
		case strings.HasPrefix(body, "deleted file mode "):
			out.WriteString("new file mode " + strings.TrimPrefix(body, "deleted file mode ") + eol)
		case strings.HasPrefix(body, "copy from "), strings.HasPrefix(body, "copy to "), strings.HasPrefix(body, "GIT binary patch"):
			return "", fmt.Errorf("line %d: %q cannot be reversed as text", i+1, truncate(body, 40))
		case strings.HasPrefix(body, "Binary files ") && strings.HasSuffix(body, " differ"):
			mid := strings.TrimSuffix(strings.TrimPrefix(body, "Binary files "), " differ")
			if a, b, ok := strings.Cut(mid, " and "); ok {
				out.WriteString("Binary files " + swapPrefix(b, "b/", "a/") + " and " + swapPrefix(a, "a/", "b/") + " differ" + eol)
			} else {
				out.WriteString(raw)
			}
		default:
			// Header pairs: the first of each pair waits for its partner.
			pair := map[string]string{"old mode ": "new mode ", "rename from ": "rename to ", "--- ": "+++ "}
			handled := false
			for first, second := range pair {
				if strings.HasPrefix(body, first) {
					pending[first] = body
					pending[first+"eol"] = eol
					handled = true
					break
				}
				if strings.HasPrefix(body, second) {
					a, ok := pending[first]
					if !ok {
						return "", fmt.Errorf("line %d: %q without a preceding %q line", i+1, truncate(body, 40), first)
					}
					delete(pending, first)
					aPayload := strings.TrimPrefix(a, first)
					bPayload := strings.TrimPrefix(body, second)
					if first == "--- " {
						aPayload, bPayload = swapPrefix(bPayload, "b/", "a/"), swapPrefix(aPayload, "a/", "b/")
					} else {
						aPayload, bPayload = bPayload, aPayload
					}
					out.WriteString(first + aPayload + pending[first+"eol"] + second + bPayload + eol)
					delete(pending, first+"eol")
					handled = true
					break
				}
			}
			if !handled {
				out.WriteString(raw)
			}
		}
	}
	flush()
	if oldLeft > 0 || newLeft > 0 {
		return "", fmt.Errorf("end of diff inside a hunk: %d old and %d new lines missing", oldLeft, newLeft)
	}
	for k, v := range pending {
		if !strings.HasSuffix(k, "eol") {
			return "", fmt.Errorf("%q header without its partner line", truncate(v, 40))
		}
	}
	return out.String(), nil
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
