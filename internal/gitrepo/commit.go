package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
)

// Signature is the author or committer of a commit.
type Signature struct {
	Name  string    `json:"name"`
	Email string    `json:"email"`
	When  time.Time `json:"when"`
}

// Commit is a commit's metadata. Message is the full message (subject,
// blank line, body) as recorded, without the trailing newline; Subject is
// its first paragraph joined onto one line, as `git log --format=%s` shows.
type Commit struct {
	Hash      string    `json:"hash"`
	Tree      string    `json:"tree"`
	Parents   []string  `json:"parents"`
	Author    Signature `json:"author"`
	Committer Signature `json:"committer"`
	Subject   string    `json:"subject"`
	Message   string    `json:"message"`
}

// parseCommit parses a raw commit object: header lines ("tree", "parent",
// "author", "committer", others ignored; continuation lines of multi-line
// headers such as gpgsig start with a space), a blank line, the message.
func parseCommit(hash string, data []byte) (Commit, error) {
	c := Commit{Hash: hash}
	head, msg, found := bytes.Cut(data, []byte("\n\n"))
	if !found {
		head = bytes.TrimSuffix(data, []byte("\n"))
		msg = nil
	}
	for _, line := range strings.Split(string(head), "\n") {
		if line == "" || line[0] == ' ' {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		if err := c.setHeader(key, val); err != nil {
			return Commit{}, fmt.Errorf("commit %s: %s header: %w", hash, key, err)
		}
	}
	if c.Tree == "" {
		return Commit{}, fmt.Errorf("commit %s: no tree header", hash)
	}
	c.Message = strings.TrimRight(string(msg), "\n")
	c.Subject = subject(c.Message)
	return c, nil
}

// setHeader records one commit header; unknown keys are ignored.
func (c *Commit) setHeader(key, val string) error {
	var err error
	switch key {
	case "tree":
		c.Tree = val
	case "parent":
		c.Parents = append(c.Parents, val)
	case "author":
		c.Author, err = parseSignature(val)
	case "committer":
		c.Committer, err = parseSignature(val)
	}
	return err
}

// subject is the first paragraph of msg with its lines joined by spaces.
func subject(msg string) string {
	msg = strings.TrimLeft(msg, "\n")
	para, _, _ := strings.Cut(msg, "\n\n")
	return strings.Join(strings.Fields(strings.ReplaceAll(para, "\n", " ")), " ")
}

// parseSignature parses "Name <email> 1700000000 +0200". Git tolerates
// odd identities, so only the angle brackets and the timestamp are
// required; a malformed zone falls back to UTC.
func parseSignature(s string) (Signature, error) {
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return Signature{}, fmt.Errorf("malformed identity %q", s)
	}
	sig := Signature{
		Name:  strings.TrimSpace(s[:lt]),
		Email: s[lt+1 : gt],
	}
	rest := strings.Fields(s[gt+1:])
	if len(rest) == 0 {
		return Signature{}, fmt.Errorf("no date in %q", s)
	}
	secs, err := strconv.ParseInt(rest[0], 10, 64)
	if err != nil {
		return Signature{}, fmt.Errorf("malformed date %q in %q", rest[0], s)
	}
	loc := time.UTC
	if len(rest) > 1 {
		loc = parseZone(rest[1])
	}
	sig.When = time.Unix(secs, 0).In(loc)
	return sig, nil
}

// parseZone parses git's "+hhmm"/"-hhmm" offset; anything else is UTC.
func parseZone(z string) *time.Location {
	if len(z) != 5 || (z[0] != '+' && z[0] != '-') {
		return time.UTC
	}
	hh, err1 := strconv.Atoi(z[1:3])
	mm, err2 := strconv.Atoi(z[3:5])
	if err1 != nil || err2 != nil || mm >= 60 {
		return time.UTC
	}
	off := hh*3600 + mm*60
	if z[0] == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC
	}
	return time.FixedZone(z, off)
}

// checkRev rejects revisions that cannot be passed safely to cat-file.
func (r *Repo) checkRev(op, rev string) error {
	if rev == "" || strings.ContainsAny(rev, "\n\x00") {
		return fmt.Errorf("%s(%q) in %s: revision is empty or contains a newline: %w", op, rev, r.path, errs.ErrInput)
	}
	return nil
}

// Resolve resolves rev (a full or abbreviated hash, branch, tag, or any
// revision expression git accepts) to a commit.
func (r *Repo) Resolve(ctx context.Context, rev string) (Commit, error) {
	if err := r.checkRev("gitrepo.Resolve", rev); err != nil {
		return Commit{}, err
	}
	objs, err := r.batch(ctx, []string{rev + "^{commit}"})
	if err != nil {
		return Commit{}, fmt.Errorf("gitrepo.Resolve(%s): %w", rev, err)
	}
	return r.commitFrom(rev, objs[0])
}

func (r *Repo) commitFrom(rev string, o object) (Commit, error) {
	switch {
	case o.Missing:
		return Commit{}, fmt.Errorf("commit %s not in %s: fetch it or use --clone: %w", rev, r.path, errs.ErrNotFound)
	case o.Ambiguous:
		return Commit{}, fmt.Errorf("revision %s is ambiguous in %s: give more hash digits: %w", rev, r.path, errs.ErrInput)
	case o.Type != "commit":
		return Commit{}, fmt.Errorf("revision %s in %s is a %s, not a commit: %w", rev, r.path, o.Type, errs.ErrInput)
	}
	c, err := parseCommit(o.Oid, o.Data)
	if err != nil {
		return Commit{}, fmt.Errorf("revision %s in %s: %w: %w", rev, r.path, err, errs.ErrInput)
	}
	return c, nil
}

// commits reads the commits named by hashes in one batch.
func (r *Repo) commits(ctx context.Context, hashes []string) ([]Commit, error) {
	specs := make([]string, len(hashes))
	for i, h := range hashes {
		specs[i] = h + "^{commit}"
	}
	objs, err := r.batch(ctx, specs)
	if err != nil {
		return nil, err
	}
	out := make([]Commit, len(objs))
	for i, o := range objs {
		if out[i], err = r.commitFrom(hashes[i], o); err != nil {
			return nil, err
		}
	}
	return out, nil
}
