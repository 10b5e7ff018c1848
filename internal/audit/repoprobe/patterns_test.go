package repoprobe

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

const licence = `/*
 * Copyright (c) 2024 Zorblax Industries. All rights reserved.
 * Licensed under the Quuxified Licence, version 3; see QUUX-LICENCE.
 */
`

// javaMethod renders a method whose structure is fixed and whose names vary.
func javaMethod(name, field string) string {
	return fmt.Sprintf(`    public int %s(int[] values) {
        int total = 0;
        for (int i = 0; i < values.length; i++) {
            if (values[i] > this.%s) {
                total += values[i] * 2;
            } else {
                total -= frobnicateWidget(values[i]);
            }
        }
        return total;
    }
`, name, field)
}

func testRepo() []File {
	return []File{
		{Path: "a/A.java", Content: []byte(licence + "package a;\n\nclass A {\n" + javaMethod("sumA", "limitA") + "}\n")},
		{Path: "a/B.java", Content: []byte(licence + "package a;\n\nclass B {\n" + javaMethod("sumB", "limitB") + "}\n")},
		{Path: "a/C.java", Content: []byte("package a;\n\n// A comment that appears nowhere else in this repository at all, really.\nclass C {\n  int x() { return 1; }\n}\n")},
	}
}

func kinds(pats []Pattern) map[PatternKind][]Pattern {
	m := map[PatternKind][]Pattern{}
	for _, p := range pats {
		m[p.Kind] = append(m[p.Kind], p)
	}
	return m
}

func TestMineClonesAndText(t *testing.T) {
	files := testRepo()
	pats, err := Mine(context.Background(), files, MineOptions{CloneMinTokens: 30, MinSupport: 2})
	if err != nil {
		t.Fatal(err)
	}
	k := kinds(pats)
	// Must match: the two renamed methods are one clone group.
	if len(k[KindClone]) != 1 || len(k[KindClone][0].Snippets) != 2 {
		t.Fatalf("clones: want one group of 2, got %+v", k[KindClone])
	}
	for _, s := range k[KindClone][0].Snippets {
		if txt := string(files[s.File].Content[s.Start:s.End]); !strings.HasPrefix(txt, "public int sum") {
			t.Errorf("clone snippet starts %q", txt[:min(20, len(txt))])
		}
	}
	// Must match: the licence headers cluster; must not: C's lone comment.
	var lic bool
	for _, p := range k[KindText] {
		for _, s := range p.Snippets {
			txt := string(files[s.File].Content[s.Start:s.End])
			if strings.Contains(txt, "nowhere else") {
				t.Errorf("lone comment clustered: %+v", p)
			}
			if strings.Contains(txt, "Zorblax") {
				lic = len(p.Snippets) == 2
			}
		}
	}
	if !lic {
		t.Errorf("licence headers not clustered: %+v", k[KindText])
	}
}

func TestMineTextSimHashThreshold(t *testing.T) {
	// A one-word change stays within the Hamming threshold; an unrelated
	// text does not.
	a := "// The frobnicator widget cache keeps every gizmo until the quux expires.\n"
	b := "// The frobnicator widget cache keeps every gadget until the quux expires.\n"
	c := "// Completely different prose about parsing date strings in the locale.\n"
	files := []File{{Path: "x.java", Content: []byte(a)}, {Path: "y.java", Content: []byte(b)}, {Path: "z.java", Content: []byte(c)}}
	pats := mineText(files, MineOptions{SimHashDist: 12, TextMinChars: 20})
	if len(pats) != 1 || len(pats[0].Snippets) != 2 || pats[0].Snippets[0].File != 0 || pats[0].Snippets[1].File != 1 {
		t.Fatalf("want one cluster {x, y}, got %+v", pats)
	}
	if pats := mineText(files, MineOptions{SimHashDist: 0, TextMinChars: 20}); len(pats) != 0 {
		t.Errorf("distance 0 clusters different texts: %+v", pats)
	}
}

func TestMineCooccur(t *testing.T) {
	var files []File
	for i := range 4 {
		files = append(files, File{Path: fmt.Sprintf("f%d.py", i), Content: []byte(fmt.Sprintf(
			"import os\nx%d = zorbConfig.loadWidget()\nprint('hi')\nres = applyGizmo(x%d)\n", i, i))})
	}
	files = append(files, File{Path: "other.py", Content: []byte("applyGizmo(1)\n")})
	pats := mineCooccur(context.Background(), files, MineOptions{MinSupport: 3, MinSupportFrac: 0.01, MaxPatternLen: 3, MaxSeqWords: 48, MaxCooccur: 100, MaxRepoFrac: 0.01})
	if len(pats) != 1 {
		t.Fatalf("want the single closed pattern, got %+v", pats)
	}
	if got := strings.Join(pats[0].Words, " "); got != "zorbConfig loadWidget applyGizmo" {
		t.Errorf("pattern %q", got)
	}
	if len(pats[0].Snippets) != 4 {
		t.Errorf("support %d, want 4", len(pats[0].Snippets))
	}
}

func TestMineRejectsNothing(t *testing.T) {
	// Unparsable, binary-ish and empty files are tolerated.
	files := []File{{Path: "a.java", Content: []byte("class { {{{ ")}, {Path: "b.py", Content: []byte{0, 1, 2}}, {Path: "c.txt"}}
	if _, err := Mine(context.Background(), files, MineOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Mine(ctx, testRepo(), MineOptions{}); err == nil {
		t.Error("cancelled Mine returned no error")
	}
}

// TestMineCooccurAllWords: with the index, co-occurrence items are the
// distinctive words only (Algorithm 2); MineCooccur without it, as the
// "without distinctiveness" ablation mines, keeps the common words too,
// so a common word can be a co-occurrence target.
func TestMineCooccurAllWords(t *testing.T) {
	var files []File
	for i := range 4 {
		files = append(files, File{Path: fmt.Sprintf("f%d.py", i), Content: []byte(fmt.Sprintf(
			"x%d = zorbConfig.loadWidget()\nres = getLogger(x%d)\n", i, i))})
	}
	// getLogger is in every indexed repository: common.
	var index [][]File
	for i := range 20 {
		index = append(index, []File{{Path: "a.py", Content: []byte(fmt.Sprintf("getLogger(%d)\n", i))}})
	}
	index = append(index, files)
	freq := NewMapFreq(index)
	opts := MineOptions{MinSupport: 3, MinSupportFrac: 0.01, MaxPatternLen: 3, MaxSeqWords: 48, MaxCooccur: 100, Workers: 1}
	words := func(pats []Pattern) string {
		var out []string
		for _, p := range pats {
			out = append(out, strings.Join(p.Words, " "))
		}
		return strings.Join(out, "; ")
	}
	with := opts
	with.Freq, with.MaxRepoFrac = freq, 0.1
	distinct, err := MineCooccur(context.Background(), files, with)
	if err != nil {
		t.Fatal(err)
	}
	if got := words(distinct); got != "zorbConfig loadWidget" {
		t.Errorf("with the index: %q, want the distinctive pair only", got)
	}
	all, err := MineCooccur(context.Background(), files, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := words(all); got != "zorbConfig loadWidget getLogger" {
		t.Errorf("without the index: %q, want the common word too", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MineCooccur(ctx, files, opts); err == nil {
		t.Error("cancelled MineCooccur returned no error")
	}
}
