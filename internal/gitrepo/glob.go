package gitrepo

import (
	"path"
	"strings"
)

// Match reports whether the slash-separated file path name matches
// pattern, with doublestar semantics: a pattern segment "**" matches zero
// or more whole path segments ("src/**/*.java" matches "src/A.java" and
// "src/a/b/A.java"; "**" alone matches everything); every other segment
// is matched against one path segment with path.Match ("*", "?", "[a-z]",
// "\\" escapes; "*" never crosses "/"). "**" inside a segment ("a**b")
// behaves like "*". Brace alternatives ("{a,b}") are not supported; pass
// several patterns instead. A malformed pattern matches nothing; check it
// first with ValidatePattern.
func Match(pattern, name string) bool {
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// matchSegs is a dynamic programme over (pattern segment, name segment)
// positions, so patterns with many "**" stay O(len(pat)·len(name)) instead
// of backtracking exponentially. ok[i][j] says pat[i:] matches name[j:].
func matchSegs(pat, name []string) bool {
	np, nn := len(pat), len(name)
	ok := make([][]bool, np+1)
	for i := range ok {
		ok[i] = make([]bool, nn+1)
	}
	ok[np][nn] = true
	for i := np - 1; i >= 0; i-- {
		for j := nn; j >= 0; j-- {
			if pat[i] == "**" {
				// Zero segments, or one more segment and stay on "**".
				ok[i][j] = ok[i+1][j] || (j < nn && ok[i][j+1])
				continue
			}
			if j < nn && segMatch(pat[i], name[j]) {
				ok[i][j] = ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}

// segMatch matches one name segment against one pattern segment; a
// malformed pattern matches nothing.
func segMatch(pat, seg string) bool {
	m, err := path.Match(pat, seg)
	return err == nil && m
}

// ValidatePattern reports whether pattern is well formed (path.ErrBadPattern
// otherwise), so callers can reject a bad glob up front instead of
// silently matching nothing.
func ValidatePattern(pattern string) error {
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return err
		}
	}
	return nil
}
