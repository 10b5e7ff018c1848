package answer

import (
	"encoding/json"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fields holds an answer's values by normalised key: lower-case ASCII
// letters and digits only, so "can_throw_T", "Can throw T" and "canThrowT"
// coincide. Values are as JSON decodes them (bool, float64, string, maps,
// slices) or, from "key: value" lines, strings.
type Fields map[string]any

func normKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// normalise keys m's values by normKey.
func normalise(m map[string]any) Fields {
	// Keys are visited in sorted order so that two keys normalising alike
	// ("canThrowT" and "can_throw_T") resolve the same way on every run:
	// the first in byte order wins.
	f := make(Fields, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		nk := normKey(k)
		if _, dup := f[nk]; !dup {
			f[nk] = m[k]
		}
	}
	return f
}

// Get returns the value of the first of keys that is present and not
// null: callers list the key their prompt asks for first, then the names
// models use instead.
func (f Fields) Get(keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := f[k]; ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// Has reports whether one of keys is present and not null.
func (f Fields) Has(keys ...string) bool {
	_, ok := f.Get(keys...)
	return ok
}

// Text returns a field as text: a string trimmed, a number or boolean
// formatted, an object or array as its JSON; "" when absent.
func (f Fields) Text(keys ...string) string {
	v, ok := f.Get(keys...)
	if !ok {
		return ""
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(v) // an object or array (a structured trigger): keep it as JSON
	if err != nil {
		return ""
	}
	return string(b)
}

var firstInt = regexp.MustCompile(`-?\d{1,9}`)

// Int returns a field as a non-negative count such as a line number: a
// JSON number below 1e9, or the first integer in a string ("line 4");
// 0 when absent, negative or unreadable, as 0 is no line.
func (f Fields) Int(keys ...string) int {
	v, ok := f.Get(keys...)
	if !ok {
		return 0
	}
	switch x := v.(type) {
	case float64:
		if x >= 0 && x < 1e9 {
			return int(x)
		}
	case string:
		if m := firstInt.FindString(x); m != "" {
			n, _ := strconv.Atoi(m)
			return max(n, 0)
		}
	}
	return 0
}

// Confidence reads a confidence in [0, 1] from the first of keys present: a
// number, or a numeric string; a percentage (1 < c ≤ 100, or a string
// ending in %) is scaled. A string that is no number is looked up,
// lower-cased, in verbal ("high", say — some models answer in words; nil
// takes none). A missing or out-of-range value is nil, not guessed.
func (f Fields) Confidence(verbal map[string]float64, keys ...string) *float64 {
	v, ok := f.Get(keys...)
	if !ok {
		return nil
	}
	var c float64
	switch x := v.(type) {
	case float64:
		c = x
	case string:
		if c, ok = stringConfidence(x, verbal); !ok {
			return nil
		}
	default:
		return nil
	}
	return unitConfidence(c)
}

// unitConfidence scales a percentage (1 < c ≤ 100) to [0, 1] and returns
// nil for anything outside it.
func unitConfidence(c float64) *float64 {
	if c > 1 && c <= 100 {
		c /= 100
	}
	if math.IsNaN(c) || c < 0 || c > 1 {
		return nil
	}
	return &c
}

// stringConfidence reads a confidence written as a number, a percentage
// ("80%") or one of the verbal words; ok is false for anything else.
func stringConfidence(x string, verbal map[string]float64) (c float64, ok bool) {
	s := strings.TrimSpace(x)
	pct := strings.HasSuffix(s, "%")
	n, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	if err != nil {
		w, ok := verbal[strings.ToLower(s)]
		if !ok {
			return 0, false
		}
		n = w
	}
	if pct {
		n /= 100
	}
	return n, true
}

// Bool reads v as a yes/no value: a JSON boolean, or a string that word
// reads. The word reader is the caller's, as the vocabularies differ (the
// judge's true/false/yes/no, the probes' defective/clean too). ok is false
// for anything else, which the caller reports as unparseable.
func Bool(v any, word func(string) (bool, bool)) (b, ok bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		return word(x)
	}
	return false, false
}

// FirstYesNo reads the first word of s (after any non-letters) as true,
// yes or y, or false, no or n, case-insensitively; ok is false otherwise,
// so "maybe" or "unclear" are not read.
func FirstYesNo(s string) (b, ok bool) {
	w := strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	end := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
	if end >= 0 {
		w = w[:end]
	}
	switch strings.ToLower(w) {
	case "true", "yes", "y":
		return true, true
	case "false", "no", "n":
		return false, true
	}
	return false, false
}

// Clip shortens s to at most n bytes, on a rune boundary, marking the cut
// with "…"; error messages quote answers, and an answer may be 64 KiB.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
