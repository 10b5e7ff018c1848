package track

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/gitrepo"
)

// Step kinds: what a commit did to a tracked function or file.
const (
	StepLanded      = "landed"           // the fix's commit on the chain
	StepFileRenamed = "file-renamed"     // the file was renamed (git -M)
	StepModified    = "modified"         // the function's text changed
	StepResigned    = "re-signatured"    // same name, other parameters
	StepRenamed     = "renamed"          // another name, similar body
	StepMovedFile   = "moved-file"       // the function went to another file changed in the same commit
	StepExtracted   = "extracted"        // lines left it for a function added or grown in the same commit
	StepInlined     = "inlined"          // it was deleted and its lines went into a function grown in the same commit
	StepFuncDeleted = "function-deleted" // no descendant found
	StepFileDeleted = "file-deleted"     // the file was deleted and the function is nowhere else
)

// Step is one event in a tracked function's history: check it with
// `git show COMMIT`.
type Step struct {
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Kind     string `json:"kind"`
	Path     string `json:"path,omitempty"`
	Function string `json:"function,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// State is what the tracked function is from commit index From of the
// chain until the next state: its file and key (Path "" once gone), and
// the functions of the same file that fix lines were extracted into.
type State struct {
	From  int      `json:"-"`
	Path  string   `json:"path,omitempty"`
	Key   string   `json:"function,omitempty"`
	Extra []string `json:"extracted_into,omitempty"`
	Gone  string   `json:"gone,omitempty"`
	Step  Step     `json:"step"`
	// Text is the function's source in this state, ExtraText that of the
	// functions in Extra (in order): enough to score the fix lines against
	// it without reparsing the whole file.
	Text      string   `json:"-"`
	ExtraText []string `json:"-"`
}

// Target is what to follow: a file of the fix, as it is named at the
// landing commit, and a function in it (Key as change.Key; Key "" follows
// the file alone, for top-level code, with a state wherever a commit
// removes or restores one of Lines, the block's trimmed source lines).
type Target struct {
	Path  string
	Key   string
	Name  string
	Lines []string
	// Text is the function's source in the fixed file: of several
	// functions with Key (anonymous classes' methods share
	// "Outer.<anonymous>.read(JsonReader)") the landing is the one most
	// like it.
	Text string
}

// minRenamed is the identifier Jaccard a function with another name must
// share with the tracked one to be taken as its renamed descendant
// (CodeShovel's body-similarity rule for renamed methods).
const minRenamed = 0.5

// Follow walks the chain of h from commit index from to upto (inclusive),
// visiting only the commits that touch the tracked file, and returns the
// states of tg's function in order (the first is the landing).
func (t *Tracker) Follow(ctx context.Context, repo *gitrepo.Repo, h *History, from, upto int, tg Target) ([]State, error) {
	w := &walk{t: t, repo: repo, h: h, tg: tg}
	return w.run(ctx, from, upto)
}

type walk struct {
	t    *Tracker
	repo *gitrepo.Repo
	h    *History
	tg   Target
	cur  State
	text string       // the tracked function's source at cur
	prev *fileVersion // the tracked file at cur
	out  []State
	// tw is words(twOf), the words of the tracked text last asked for.
	tw   map[string]bool
	twOf string
}

// textWords is words(w.text), computed once per tracked text: every
// commit the fast path visits compares the new span with it.
func (w *walk) textWords() map[string]bool {
	if w.tw == nil || w.twOf != w.text {
		w.tw, w.twOf = words(w.text), w.text
	}
	return w.tw
}

func (w *walk) step(i int, kind, detail string) Step {
	c := w.h.Commits[i]
	return Step{Commit: c.Hash, Date: c.Time.Format(time.RFC3339), Kind: kind, Path: w.cur.Path, Function: w.cur.Key, Detail: detail}
}

func (w *walk) push(i int, kind, detail string) {
	w.cur.From = i
	w.cur.Step = w.step(i, kind, detail)
	w.cur.Extra = append([]string(nil), w.cur.Extra...)
	w.cur.Text = w.text
	w.out = append(w.out, w.cur)
}

// extraTexts fills the source of the extra functions from v.
func (w *walk) extraTexts(v *fileVersion) {
	w.cur.ExtraText = nil
	for _, k := range w.cur.Extra {
		if i := v.byKey(k); i >= 0 {
			w.cur.ExtraText = append(w.cur.ExtraText, v.functions()[i].Text)
		}
	}
}

func (w *walk) gone(i int, kind, why string) {
	w.cur.Gone = why
	w.push(i, kind, why)
	w.cur.Path, w.cur.Key = "", ""
	w.out[len(w.out)-1].Path, w.out[len(w.out)-1].Key = "", ""
}

func (w *walk) run(ctx context.Context, from, upto int) ([]State, error) {
	c := w.h.Commits[from]
	v, err := w.t.files.get(ctx, w.repo, c.Hash, w.tg.Path)
	if err != nil {
		return nil, err
	}
	w.cur = State{Path: w.tg.Path, Key: w.tg.Key}
	if v == nil {
		w.gone(from, StepFileDeleted, fmt.Sprintf("%s is not in the landing commit", w.tg.Path))
		return w.out, nil
	}
	w.prev = v
	if !w.land(from, v) {
		return w.out, nil
	}
	if err := w.follow(ctx, from, upto); err != nil {
		return nil, err
	}
	return w.out, nil
}

// land starts the walk at the landing commit from, whose version of the
// file is v: the target function is found by key, else by a name unique
// in its class, else in the file (an upstream landing commit may have
// other parameters than the benchmark's patched file: sphinx's
// DocstringSignatureMixin.get_doc had lost its encoding parameter, and
// four classes define get_doc). It reports false when the function is not
// there (the walk ends gone).
func (w *walk) land(from int, v *fileVersion) bool {
	if w.tg.Key != "" {
		k := keyed(v, w.tg.Key, w.tg.Text)
		if k < 0 {
			k = uniqueName(v, classOf(w.tg.Key), w.tg.Name)
		}
		if k < 0 {
			k = uniqueName(v, "", w.tg.Name)
		}
		if k < 0 {
			w.gone(from, StepFuncDeleted, fmt.Sprintf("%s is not in %s at the landing commit", w.tg.Key, w.tg.Path))
			return false
		}
		w.cur.Key, w.text = v.functions()[k].Key, v.functions()[k].Text
	}
	w.push(from, StepLanded, "")
	return true
}

// follow visits every commit after from, up to upto, that changes the
// tracked file, until the file or function is lost.
func (w *walk) follow(ctx context.Context, from, upto int) error {
	for i := from; w.cur.Path != ""; {
		j := w.h.nextTouch(w.cur.Path, i)
		if j < 0 || j > upto {
			break
		}
		i = j
		ch, ok := w.h.changeOf(j, w.cur.Path)
		if !ok {
			continue
		}
		if err := w.visit(ctx, j, ch); err != nil {
			return err
		}
	}
	return nil
}

// visit follows the tracked function through commit j's change ch of its
// file.
func (w *walk) visit(ctx context.Context, j int, ch Change) error {
	switch ch.Status {
	case 'C':
		return nil // a copy leaves the original in place
	case 'D':
		return w.lost(ctx, j, StepFileDeleted, fmt.Sprintf("%s deleted", w.cur.Path))
	}
	renamed := ch.Status == 'R' && ch.New != ch.Old
	if renamed {
		w.cur.Path = ch.New
	}
	v, err := w.t.files.get(ctx, w.repo, w.h.Commits[j].Hash, w.cur.Path)
	if err != nil || v == nil {
		return err
	}
	defer func() { w.prev = v }()
	if w.cur.Key == "" {
		w.visitBlock(j, v, renamed, ch.Old)
		return nil
	}
	if containsText(v.src, w.text) {
		if renamed {
			w.push(j, StepFileRenamed, "from "+ch.Old)
		}
		return nil
	}
	if w.fast(j, v, renamed, ch.Old) {
		return nil
	}
	return w.changed(ctx, j, v, renamed, ch.Old)
}

// changed finds the tracked function's descendant in v, whose text
// differs from the tracked one.
func (w *walk) changed(ctx context.Context, j int, v *fileVersion, renamed bool, oldPath string) error {
	fs := v.functions()
	k, kind, detail := w.descendant(v)
	if k < 0 && w.intoExtra(j, v) {
		return nil
	}
	if k < 0 {
		return w.lost(ctx, j, StepFuncDeleted, fmt.Sprintf("%s no longer in %s", w.cur.Key, w.cur.Path))
	}
	if moved, err := w.splitAway(ctx, j, &fs[k]); err != nil || moved {
		return err
	}
	if renamed && detail == "" {
		detail = "file renamed from " + oldPath
	}
	old := fn{Text: w.text}
	w.cur.Key, w.text = fs[k].Key, fs[k].Text
	w.cur.Extra = keepExtra(v, w.cur.Extra)
	if into := extractedInto(old.sourceLines(), &fs[k], v, w.prev); len(into) > 0 {
		w.cur.Extra = appendNew(w.cur.Extra, into...)
		w.extraTexts(v)
		w.push(j, StepExtracted, "lines moved into "+strings.Join(into, ", "))
		return nil
	}
	w.extraTexts(v)
	w.push(j, kind, detail)
	return nil
}

// intoExtra continues the walk in the first function fix lines were
// extracted into when the tracked function itself is deleted at commit j
// and that function is still in v: the stub left after an extraction (a
// one-line delegation, jackson-core's _parseNegNumber() calling
// _parsePossibleNumber(true)) going is no loss of the lines it handed on.
func (w *walk) intoExtra(j int, v *fileVersion) bool {
	extra := keepExtra(v, w.cur.Extra)
	if len(extra) == 0 {
		return false
	}
	was := w.cur.Key
	f := v.functions()[v.byKey(extra[0])]
	w.cur.Key, w.text, w.cur.Extra = f.Key, f.Text, extra[1:]
	w.extraTexts(v)
	w.push(j, StepExtracted, "deleted "+was+"; its extracted lines live on in "+f.Key)
	return true
}

// splitAway follows the tracked function to another file of commit j when
// its descendant by key, now, kept less than minRenamed of its body and a
// function the commit added elsewhere has more: a class split in which
// the old name took a new role (xarray's PandasIndex.__init__ kept three
// lines in 4bb9d9c while its body went to indexing.py's new
// PandasIndexingAdapter.__init__).
func (w *walk) splitAway(ctx context.Context, j int, now *fn) (bool, error) {
	sim := jaccard(words(now.Text), w.textWords())
	if sim >= minRenamed {
		return false, nil
	}
	return w.movedAway(ctx, j, sim)
}

// descendant finds the tracked function in v: by key (modified), else by
// name with a new signature, by similar text (renamed) or as the function
// it was inlined into; -1 when none.
func (w *walk) descendant(v *fileVersion) (k int, kind, detail string) {
	if k = keyed(v, w.cur.Key, w.text); k >= 0 {
		return k, StepModified, ""
	}
	if k = w.sameName(v); k >= 0 {
		return k, StepResigned, "was " + w.cur.Key
	}
	if k = w.similar(v, w.prev); k >= 0 {
		return k, StepRenamed, "was " + w.cur.Key
	}
	if k = inlinedInto(w.text, nameOf(w.cur.Key), v, w.prev); k >= 0 {
		return k, StepInlined, "was " + w.cur.Key
	}
	return -1, StepModified, ""
}

// visitBlock follows top-level code through commit j's version v of its
// file: a state when the commit removes or restores one of the block's
// telling lines (a byte search, no parse; a lone "}" says nothing), else
// only a rename is recorded.
func (w *walk) visitBlock(j int, v *fileVersion, renamed bool, oldPath string) {
	switch gone, back := linesFlipped(telling(w.tg.Lines), w.prev, v); {
	case gone+back > 0:
		detail := fmt.Sprintf("%d of the block's lines removed, %d restored", gone, back)
		if renamed {
			detail += "; file renamed from " + oldPath
		}
		w.push(j, StepModified, detail)
	case renamed:
		w.push(j, StepFileRenamed, "from "+oldPath)
	}
}

// linesFlipped counts the lines in prev and not in v (gone), and the
// other way round (back).
func linesFlipped(lines []string, prev, v *fileVersion) (gone, back int) {
	if prev == nil {
		return 0, 0
	}
	for _, l := range lines {
		was, is := bytes.Contains(prev.src, []byte(l)), bytes.Contains(v.src, []byte(l))
		switch {
		case was && !is:
			gone++
		case is && !was:
			back++
		}
	}
	return gone, back
}

// fast handles the common step without a parse: the function's header
// line is still in the file once and no fix line left for elsewhere in
// the file (no extraction to look for), so the new text is the modified
// function.
func (w *walk) fast(j int, v *fileVersion, renamed bool, oldPath string) bool {
	text, ok, anchored := fastSpan(v.src, w.text, nameOf(w.cur.Key), path.Ext(w.cur.Path) == ".py", w.prevSrc())
	if !ok || jaccard(words(text), w.textWords()) < minRenamed {
		return false // not found so, or rewritten: its body may have gone to another file (splitAway)
	}
	now := fn{Text: text}
	in := map[string]bool{}
	for _, l := range now.sourceLines() {
		in[l] = true
	}
	old := fn{Text: w.text}
	var gone []string
	for _, l := range old.sourceLines() {
		if in[l] || generic(l) {
			continue
		}
		if w.mayHaveMoved([]byte(l), v, anchored) {
			return false // lines may have gone into another function: parse
		}
		gone = append(gone, l)
	}
	if w.mayDelegate(gone, v, text) {
		return false // they may have gone to a function it now calls: parse
	}
	extra, ok := w.fastExtra(v)
	if !ok {
		return false // an extra function changed beyond a byte search: parse
	}
	w.text, w.cur.ExtraText = text, extra
	detail := ""
	if renamed {
		detail = "file renamed from " + oldPath
	}
	w.prev = v
	w.push(j, StepModified, detail)
	return true
}

// mayDelegate reports whether the telling lines gone from the tracked
// function may have gone to a function its new text calls, by the
// conditions extractedInto's delegation rule needs: a call it did not
// make before (or one to its own name), and at least two of the lines,
// and half of them, still in the file.
func (w *walk) mayDelegate(gone []string, v *fileVersion, now string) bool {
	n := 0
	for _, l := range gone {
		if bytes.Contains(v.src, []byte(l)) {
			n++
		}
	}
	return n >= 2 && 2*n >= len(gone) && (addsCall(w.text, now) || ownCalls(now, nameOf(w.cur.Key)) > 1)
}

// prevSrc is the text of the version the walk saw last (nil before the
// first).
func (w *walk) prevSrc() []byte {
	if w.prev == nil {
		return nil
	}
	return w.prev.src
}

// mayHaveMoved reports whether line l, gone from the tracked function,
// may have gone elsewhere in v: v holds it at least as often as the
// previous version did (a deleted line leaves one copy fewer; a line that
// merely also occurs elsewhere, as "return INDEX_NOT_FOUND;" does dozens
// of times in StringUtils, is no sign of an extraction). Among repeated
// bodies (anchored: a header the file holds several times) any copy left
// may be a helper the duplicates were merged into, as Jsoup's tokeniser
// states' end-tag code went into handleDataEndTag.
func (w *walk) mayHaveMoved(l []byte, v *fileVersion, anchored bool) bool {
	n := bytes.Count(v.src, l)
	if n == 0 {
		return false
	}
	return anchored || w.prev == nil || n >= bytes.Count(w.prev.src, l)
}

// fastExtra finds the extra functions' texts in v by a byte search, as
// fast does for the tracked function; false when one is not found so.
func (w *walk) fastExtra(v *fileVersion) ([]string, bool) {
	if len(w.cur.Extra) != len(w.cur.ExtraText) {
		return nil, false
	}
	out := make([]string, len(w.cur.Extra))
	for i, k := range w.cur.Extra {
		t, ok, _ := fastSpan(v.src, w.cur.ExtraText[i], nameOf(k), path.Ext(w.cur.Path) == ".py", w.prevSrc())
		if !ok {
			return nil, false
		}
		out[i] = t
	}
	return out, true
}

// generic lines say nothing about where code went ("}", "return;").
func generic(l string) bool {
	t := strings.TrimSpace(l)
	// Comments and bare annotations (@Override) say nothing either.
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "#") ||
		strings.HasPrefix(t, "@") && !strings.Contains(t, "(") {
		return true
	}
	switch t {
	case "}", "{", "};", "});", ")", "):", "return;", "return", "break;", "continue;", "else:", "} else {", "else", "pass", "try:", "try {", "finally:", "} finally {", "return null;", "return false;", "return true;", "return None", "return False", "return True":
		return true
	}
	return false
}

// lost looks for the tracked function in the other files commit j added
// or changed (a move or a file split): the most similar body among them,
// since one commit may move a class while others keep functions of that
// name (xarray's PandasIndexAdapter.dtype went to indexes.py as
// PandasIndex.dtype, and dataarray.py, changed in the same commit, has a
// dtype too). Failing that the function is gone.
func (w *walk) lost(ctx context.Context, j int, kind, why string) error {
	if w.cur.Key == "" {
		w.gone(j, kind, why)
		return nil
	}
	moved, err := w.movedAway(ctx, j, 0)
	if err != nil || moved {
		return err
	}
	w.gone(j, kind, why)
	return nil
}

// movedAway looks for the tracked function among the functions commit j
// added to its other files (same extension) and, when one's body is more
// similar than floor (and ≥ minRenamed), follows it there and reports
// true.
func (w *walk) movedAway(ctx context.Context, j int, floor float64) (bool, error) {
	ext := path.Ext(w.cur.Path)
	var best *fileVersion
	bestK, bestJ, bestPath := -1, floor, ""
	for _, c := range w.h.Commits[j].Changes {
		if c.Status == 'D' || c.New == w.cur.Path || path.Ext(c.New) != ext {
			continue
		}
		v, k, sim, err := w.movedInto(ctx, j, c)
		if err != nil {
			return false, err
		}
		if k >= 0 && sim > bestJ {
			best, bestK, bestJ, bestPath = v, k, sim, c.New
		}
	}
	if bestK < 0 {
		return false, nil
	}
	from, f := w.cur.Path, best.functions()[bestK]
	w.cur.Path, w.cur.Key, w.text, w.cur.Extra, w.cur.ExtraText = bestPath, f.Key, f.Text, nil, nil
	w.prev = best
	w.push(j, StepMovedFile, "from "+from)
	return true, nil
}

// movedInto finds the tracked function in the file of change c of commit
// j: by key or name, with a body similar enough (identifier Jaccard sim ≥
// minRenamed), and new there (CodeShovel's move rule: a method moves only
// into a file that did not have it; jackson-core's UTF8DataInputJsonParser
// has its own _parseNegNumber, which UTF8StreamJsonParser's, deleted in a
// commit that changed both, did not become); k is -1 when it is not there.
func (w *walk) movedInto(ctx context.Context, j int, c Change) (v *fileVersion, k int, sim float64, err error) {
	v, err = w.t.files.get(ctx, w.repo, w.h.Commits[j].Hash, c.New)
	if err != nil {
		return nil, -1, 0, err
	}
	if v == nil || !hasCallSite(v.src, nameOf(w.cur.Key)) {
		return v, -1, 0, nil // no function of that name: no parse
	}
	k = v.byKey(w.cur.Key)
	if k < 0 {
		k = w.sameName(v)
	}
	if k < 0 {
		return v, -1, 0, nil
	}
	if sim = jaccard(words(v.functions()[k].Text), w.textWords()); sim < minRenamed {
		return v, -1, 0, nil
	}
	if had, err := w.hadBefore(ctx, j, c, &v.functions()[k]); err != nil || had {
		return v, -1, 0, err
	}
	return v, k, sim, nil
}

// hasCallSite reports whether src names name followed by "(" (or " (").
func hasCallSite(src []byte, name string) bool {
	return bytes.Contains(src, []byte(name+"(")) || bytes.Contains(src, []byte(name+" ("))
}

// hadBefore reports whether the file of change c already held the
// function cand (its key) before commit j with as many of the tracked
// function's telling lines as cand holds now: a parallel implementation
// that received nothing (jackson-core's UTF8DataInputJsonParser has its
// own _parseNegNumber). A declaration that gained the tracked body is a
// move target (commons-math merged ChiSquareTestImpl into its interface
// ChiSquareTest). The file before j is read at the chain's previous
// commit (the same version of every followed file as j's first parent),
// a renamed one under its old name; a file the commit added or copied is
// new (sympy's randtest.py was copied to sympy/testing/, a shim kept).
func (w *walk) hadBefore(ctx context.Context, j int, c Change, cand *fn) (bool, error) {
	if j == 0 || c.Status == 'A' || c.Status == 'C' {
		return false, nil
	}
	pv, err := w.t.files.get(ctx, w.repo, w.h.Commits[j-1].Hash, c.Old)
	if err != nil || pv == nil || !hasCallSite(pv.src, nameOf(cand.Key)) {
		return false, err
	}
	k := pv.byKey(cand.Key)
	if k < 0 {
		return false, nil
	}
	old := fn{Text: w.text}
	lines := telling(old.sourceLines())
	return sharedLines(&pv.functions()[k], lines) >= sharedLines(cand, lines), nil
}

// sameName is the function of v with the tracked function's name (its
// parameters, or its class's name, changed): the only one, else of
// several (overloads) the one whose body is most similar (≥ minRenamed);
// the same class is preferred. -1 when none.
func (w *walk) sameName(v *fileVersion) int {
	name, class := nameOf(w.cur.Key), classOf(w.cur.Key)
	if k := uniqueName(v, class, name); k >= 0 {
		return k
	}
	ws := w.textWords()
	best, bestJ, n := -1, minRenamed, 0
	for i, f := range v.functions() {
		if f.Name != name {
			continue
		}
		n++
		if j := jaccard(ws, words(f.Text)); j >= bestJ {
			best, bestJ = i, j
		}
	}
	if n == 1 && best < 0 {
		return uniqueName(v, "", name)
	}
	return best
}

// similar is the function of v, absent from prev, whose body is most
// similar to the tracked one (≥ minRenamed), or -1.
func (w *walk) similar(v, prev *fileVersion) int {
	ws := w.textWords()
	best, bestJ := -1, minRenamed
	for i, f := range v.functions() {
		if prev != nil && prev.hasKey(f.Key) {
			continue
		}
		if j := jaccard(ws, words(f.Text)); j >= bestJ {
			best, bestJ = i, j
		}
	}
	return best
}

// extractedInto names the functions of v that received lines which left
// the tracked function (CodeTracker's extract-method rule: the lines leave
// the function and appear in a function added, or grown, in the same
// commit), or that the function now delegates to: lines leaving a method
// that now calls a sibling already holding them (jackson-core's
// getValueAsString() came to return getValueAsString(null) alone, whose
// overload had the same fix) went there as surely as into a new helper.
func extractedInto(oldLines []string, now *fn, v, prev *fileVersion) []string {
	left := linesLeft(oldLines, now)
	if len(left) == 0 {
		return nil
	}
	was, is := ownCallCounts(strings.Join(oldLines, "\n")), ownCallCounts(now.Text)
	var out []string
	fs := v.functions()
	for i := range fs {
		f := &fs[i]
		if f.Key == now.Key {
			continue
		}
		n := sharedLines(f, left)
		took, del := n >= 2 || n == len(left), delegates(was, is, now.Name, f.Name)
		if !took && !del {
			continue // nothing to add whatever prev holds: no parse of prev
		}
		switch {
		case newOrGrown(f, prev):
			if took {
				out = append(out, f.Key)
			}
		case del:
			// f did not change: it must hold most of what left, not
			// two lines any method of the class has ("continue;").
			if t := sharedLines(f, telling(left)); t >= 2 && 2*t >= len(telling(left)) {
				out = append(out, f.Key)
			}
		}
	}
	return out
}

// callSite is an identifier followed by "(": a call, or a declaration's
// header.
var callSite = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*\s*\(`)

// addsCall reports whether now has a call site old has fewer of: the
// function may now delegate lines that left it (extractedInto).
func addsCall(old, now string) bool {
	n := map[string]int{}
	for _, c := range callSite.FindAllString(old, -1) {
		n[strings.TrimRight(c, " \t\n(")]++
	}
	for _, c := range callSite.FindAllString(now, -1) {
		k := strings.TrimRight(c, " \t\n(")
		if n[k]--; n[k] < 0 {
			return true
		}
	}
	return false
}

// delegates reports whether function now calls name more often than old
// did (a call the commit added; a method's own header counts in both), or
// calls an overload of itself. Only calls on the same object count:
// StringUtils.indexOf(this, str, i) in StrBuilder.indexOf is another
// class's method, not an overload.
func delegates(was, is map[string]int, self, name string) bool {
	n := is[name]
	return name != "" && (n > was[name] || name == self && n > 1)
}

// ownCallCounts is ownCalls of text for every name at once.
func ownCallCounts(text string) map[string]int {
	out := map[string]int{}
	for i := strings.IndexByte(text, '('); i >= 0; {
		j := i
		for j > 0 && isIdentByte(text[j-1]) {
			j--
		}
		if name := text[j:i]; name != "" && ownCallAt(text, j) {
			out[name]++
		}
		k := strings.IndexByte(text[i+1:], '(')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return out
}

// ownCallAt reports whether the name starting at text[j] has no receiver
// before it, or "this.".
func ownCallAt(text string, j int) bool {
	before := strings.TrimRight(text[:j], " \t")
	return !strings.HasSuffix(before, ".") || strings.HasSuffix(before, "this.")
}

// ownCalls counts the places text names name followed by "(", without a
// receiver or with "this." before it (a header counts too).
func ownCalls(text, name string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(text[i:], name+"(")
		if j < 0 {
			return n
		}
		j += i
		if (j == 0 || !isIdentByte(text[j-1])) && ownCallAt(text, j) {
			n++
		}
		i = j + len(name)
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// linesLeft are the lines of oldLines not in now.
func linesLeft(oldLines []string, now *fn) []string {
	in := map[string]bool{}
	for _, l := range now.sourceLines() {
		in[l] = true
	}
	var left []string
	for _, l := range oldLines {
		if !in[l] {
			left = append(left, l)
		}
	}
	return left
}

// telling are the lines that are not generic.
func telling(lines []string) []string {
	var body []string
	for _, l := range lines {
		if !generic(l) {
			body = append(body, l)
		}
	}
	return body
}

// sharedLines counts the lines of want that f's source has.
func sharedLines(f *fn, want []string) int {
	have := map[string]bool{}
	for _, l := range f.sourceLines() {
		have[l] = true
	}
	n := 0
	for _, l := range want {
		if have[l] {
			n++
		}
	}
	return n
}

func newOrGrown(f *fn, prev *fileVersion) bool {
	if prev == nil {
		return true
	}
	k := prev.byKey(f.Key)
	return k < 0 || len(prev.functions()[k].Text) < len(f.Text)
}

// keepExtra keeps the extra functions still in v, each followed by key,
// else by its unique name (re-signatured, as the tracked function is).
func keepExtra(v *fileVersion, keys []string) []string {
	var out []string
	for _, k := range keys {
		if v.hasKey(k) {
			out = appendNew(out, k)
		} else if i := uniqueName(v, classOf(k), nameOf(k)); i >= 0 {
			out = appendNew(out, v.functions()[i].Key)
		}
	}
	return out
}

func appendNew(l []string, add ...string) []string {
	for _, a := range add {
		dup := false
		for _, x := range l {
			dup = dup || x == a
		}
		if !dup {
			l = append(l, a)
		}
	}
	return l
}

// keyed is the function of v with key key, of several the one whose body
// is most like text (Gson's TypeAdapters has an anonymous adapter's
// read(JsonReader) in many factories; the first is rarely the fix's); -1
// when none.
func keyed(v *fileVersion, key, text string) int {
	fs := v.functions()
	best, n := -1, 0
	for i := range fs {
		if fs[i].Key == key {
			if best < 0 {
				best = i
			}
			n++
		}
	}
	if n < 2 || text == "" {
		return best
	}
	ws, bestJ := words(text), -1.0
	for i := range fs {
		if fs[i].Key != key {
			continue
		}
		if j := jaccard(ws, words(fs[i].Text)); j > bestJ {
			best, bestJ = i, j
		}
	}
	return best
}

// uniqueName is the one function of v named name (in class when given),
// or -1 when there is none or several.
func uniqueName(v *fileVersion, class, name string) int {
	hit := -1
	for i, f := range v.functions() {
		if f.Name != name || class != "" && f.Class != class {
			continue
		}
		if hit >= 0 {
			return -1
		}
		hit = i
	}
	return hit
}

// nameOf and classOf split a change.Key "Class.name(T1,T2)".
func nameOf(key string) string {
	q, _, _ := strings.Cut(key, "(")
	if i := strings.LastIndex(q, "."); i >= 0 {
		return q[i+1:]
	}
	return q
}

func classOf(key string) string {
	q, _, _ := strings.Cut(key, "(")
	if i := strings.LastIndex(q, "."); i >= 0 {
		return q[:i]
	}
	return ""
}

// At is the state in force at commit index i (the last whose From ≤ i),
// or nil when i precedes the first.
func At(states []State, i int) *State {
	var hit *State
	for k := range states {
		if states[k].From <= i {
			hit = &states[k]
		}
	}
	return hit
}
