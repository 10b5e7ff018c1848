package testbed

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/ngram"
)

// Boilerplate is the part of a Java file that a model trained on the rest
// of the ecosystem has seen many times even when it never saw this
// repository: the licence header (the comment block before `package`) and
// the import lines of packages outside the repository's own namespace
// (ownPrefix, e.g. "org.apache.commons.csv"). The repository's own
// package line and imports are dropped, so the background never names
// what only this repository contains.
//
//	/* Licensed to the ASF ... */          kept
//	package org.apache.commons.csv;        dropped (own namespace)
//	import java.io.Reader;                 kept
//	import org.apache.commons.io.IOUtils;  kept (another repository)
//	import org.apache.commons.csv.Token;   dropped (own namespace)
func Boilerplate(src []byte, ownPrefix string) string {
	text := string(src)
	var b strings.Builder
	if i := strings.Index(text, "\npackage "); i > 0 && strings.HasPrefix(strings.TrimSpace(text), "/*") {
		b.WriteString(text[:i+1])
	}
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if !strings.HasPrefix(l, "import ") {
			continue
		}
		name := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l, "import "), "static "))
		if ownPrefix != "" && (strings.HasPrefix(name, ownPrefix+".") || strings.HasPrefix(name, ownPrefix+";")) {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// OwnPrefix is the longest package prefix shared by the files' package
// declarations ("org.apache.commons.lang3"), "" when none has one.
func OwnPrefix(files []repoprobe.File) string {
	var prefix []string
	first := true
	for _, f := range files {
		pkg := packageOf(f.Content)
		if pkg == "" {
			continue
		}
		parts := strings.Split(pkg, ".")
		if first {
			prefix, first = parts, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(parts) && prefix[n] == parts[n] {
			n++
		}
		prefix = prefix[:n]
	}
	return strings.Join(prefix, ".")
}

func packageOf(src []byte) string {
	for _, line := range bytes.Split(src, []byte("\n")) {
		l := bytes.TrimSpace(line)
		if bytes.HasPrefix(l, []byte("package ")) {
			return string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimPrefix(l, []byte("package ")), []byte(";"))))
		}
	}
	return ""
}

// jdkSources are the .java files of the given modules of at most
// maxFileBytes.
func jdkSources(files []*zip.File, modules []string, maxFileBytes int) []*zip.File {
	var pick []*zip.File
	for _, f := range files {
		top, rest, ok := strings.Cut(f.Name, "/")
		if ok && strings.HasSuffix(rest, ".java") && slices.Contains(modules, top) && f.UncompressedSize64 <= uint64(maxFileBytes) {
			pick = append(pick, f)
		}
	}
	return pick
}

// jdkDocs reads up to maxBytes of .java sources of the given src.zip
// modules, a seeded sample spread over the modules, as background docs.
func jdkDocs(zipPath string, modules []string, maxBytes int64, maxFileBytes int, seed uint64) ([]ngram.Doc, error) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, fmt.Errorf("testbed: JDK %s: %v: %w", zipPath, err, errs.ErrInput)
	}
	defer zr.Close()
	pick := jdkSources(zr.File, modules, maxFileBytes)
	rng := rand.New(rand.NewPCG(seed, 0x6a646b))
	rng.Shuffle(len(pick), func(a, b int) { pick[a], pick[b] = pick[b], pick[a] })
	var docs []ngram.Doc
	var total int64
	for _, f := range pick {
		if total >= maxBytes {
			break
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("testbed: JDK %s: %s: %v: %w", zipPath, f.Name, err, errs.ErrInput)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("testbed: JDK %s: %s: %v: %w", zipPath, f.Name, err, errs.ErrInput)
		}
		docs = append(docs, ngram.Doc{Name: "jdk/" + f.Name, Text: b})
		total += int64(len(b))
	}
	return docs, nil
}
