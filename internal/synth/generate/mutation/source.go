package mutation

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jdk"
)

// Corpus is a read-only set of Java source files: a zip (the JDK's
// src.zip) or a directory tree. File names are slash-separated and sorted.
type Corpus struct {
	Path  string
	names []string
	zr    *zip.ReadCloser
	files map[string]*zip.File
}

// OpenCorpus opens a zip file or a directory of Java sources. Only *.java
// files count, except module-info.java and package-info.java.
func OpenCorpus(path string) (*Corpus, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("mutation.OpenCorpus(%s): %w (give --corpus a JDK src.zip or a source directory): %w", path, err, errs.ErrNotFound)
	}
	c := &Corpus{Path: path}
	if st.IsDir() {
		if c.names, err = javaFiles(path); err != nil {
			return nil, fmt.Errorf("mutation.OpenCorpus(%s): %w: %w", path, err, errs.ErrInput)
		}
	} else if err := c.openZip(); err != nil {
		return nil, fmt.Errorf("mutation.OpenCorpus(%s): not a zip file or directory: %w: %w", path, err, errs.ErrInput)
	}
	slices.Sort(c.names)
	if len(c.names) == 0 {
		c.Close()
		return nil, fmt.Errorf("mutation.OpenCorpus(%s): no .java files: %w", path, errs.ErrInput)
	}
	return c, nil
}

// javaFiles lists the Java sources under dir, slash-separated and
// relative to it.
func javaFiles(dir string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && javaSource(p) {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	return names, err
}

// openZip opens c.Path as a zip file and indexes its Java sources.
func (c *Corpus) openZip() error {
	zr, err := zip.OpenReader(c.Path)
	if err != nil {
		return err
	}
	c.zr, c.files = zr, map[string]*zip.File{}
	for _, f := range zr.File {
		if !f.FileInfo().IsDir() && javaSource(f.Name) {
			c.names = append(c.names, f.Name)
			c.files[f.Name] = f
		}
	}
	return nil
}

func javaSource(name string) bool {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	return strings.HasSuffix(base, ".java") && base != "module-info.java" && base != "package-info.java"
}

// Files returns the corpus's file names, sorted. Do not modify.
func (c *Corpus) Files() []string { return c.names }

// maxFileSize bounds what ReadFile loads: larger files are skipped.
const maxFileSize = 4 << 20

// ReadFile returns the contents of file name. It may be called concurrently.
func (c *Corpus) ReadFile(name string) ([]byte, error) {
	if c.zr == nil {
		p := filepath.Join(c.Path, filepath.FromSlash(name))
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		if st.Size() > maxFileSize {
			return nil, fmt.Errorf("read %s: %d bytes is over the %d-byte limit", p, st.Size(), maxFileSize)
		}
		return os.ReadFile(p)
	}
	f := c.files[name]
	if f == nil {
		return nil, fmt.Errorf("read %s!%s: %w", c.Path, name, errs.ErrNotFound)
	}
	if f.UncompressedSize64 > maxFileSize {
		return nil, fmt.Errorf("read %s!%s: %d bytes is over the %d-byte limit", c.Path, name, f.UncompressedSize64, maxFileSize)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("read %s!%s: %w", c.Path, name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s!%s: %w", c.Path, name, err)
	}
	return b, nil
}

// Close releases the zip file, if any.
func (c *Corpus) Close() error {
	if c.zr != nil {
		return c.zr.Close()
	}
	return nil
}

// DefaultCorpus returns the JDK src.zip to mutate when none is given (see
// jdk.SrcZip for where it looks).
func DefaultCorpus() (string, error) {
	z, err := jdk.SrcZip()
	if err != nil {
		return "", fmt.Errorf("mutation.DefaultCorpus: %w", err)
	}
	return z, nil
}
