package jvm

import (
	"slices"

	"github.com/benchforge/benchforge/internal/diff"
)

// siteContext is how many unchanged lines around a change count as the
// patched site: an inserted guard changes no buggy line, so the statement
// it protects is found among the hunk's context lines (rxsynth §5.4,
// criterion (c): "at the patched site").
const siteContext = 2

// Site is the patched site of a pair in method-relative 1-based lines:
// Buggy holds the buggy method's deleted lines plus the hunks' context
// lines; Fixed the fixed method's added lines plus the same context.
type Site struct {
	Buggy []int `json:"buggy"`
	Fixed []int `json:"fixed"`
}

// PatchedSite computes the site from a line diff of the two methods.
func PatchedSite(buggy, fixed string) Site {
	fd := diff.Unified("buggy", "fixed", []byte(buggy), []byte(fixed), siteContext)
	var s Site
	for _, h := range fd.Hunks {
		o, n := h.OldStart, h.NewStart
		if h.OldLines == 0 {
			o++ // an empty old side's start is the line before
		}
		if h.NewLines == 0 {
			n++
		}
		for _, l := range h.Lines {
			switch l.Op {
			case diff.Del:
				s.Buggy = append(s.Buggy, o)
				o++
			case diff.Add:
				s.Fixed = append(s.Fixed, n)
				n++
			default:
				s.Buggy = append(s.Buggy, o)
				s.Fixed = append(s.Fixed, n)
				o++
				n++
			}
		}
	}
	slices.Sort(s.Buggy)
	s.Buggy = slices.Compact(s.Buggy)
	slices.Sort(s.Fixed)
	s.Fixed = slices.Compact(s.Fixed)
	return s
}
