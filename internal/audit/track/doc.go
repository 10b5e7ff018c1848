// Package track owns the history side of Stage II (benchchecker §3.4,
// §4.2): following a fix from the commit where it landed to a model's
// cutoff snapshot, commit by commit, so that renames, moves, splits and
// extractions that one jump across years of evolution cannot see stay
// visible.
//
// Anchors. A Defects4J fix is its revision.id.fixed; a SWE-bench fix is
// the first default-branch commit after base_commit whose tree holds
// the added source lines of the gold patch (at least 80 % of them: the
// upstream commit often differs from the cleaned patch in a line). A `git
// log -S` pickaxe from the base commit itself (which often sits on a
// release branch merged together with the fix) on the three longest added
// lines, trailing comments dropped (lines the patch only re-indents last:
// their count never changes), proposes candidates; reading the files
// verifies them. The landing commit is the first commit of the default branch's
// first-parent chain that contains the fix (the fix itself, or the merge
// that brought it in). A fix that lands after a snapshot is absent there,
// exactly: "fix not merged before the cutoff".
//
// The walk. The chain is read once per repository with
// `git log --first-parent --reverse -M -C --name-status` (per-commit
// rename and copy detection against the first parent; a long chain in
// parts, one git per core, cut at chain commits) and indexed by path, so a walk visits only the commits that touch the tracked file.
// At each such commit the tracked function is followed as CodeShovel
// (Grund et al., ICSE 2021) follows a method: a rename of its file; its
// text unchanged (a byte search, no parse); the same key; the same name
// with other parameters (re-signatured); another name with a similar body
// (identifier Jaccard ≥ 0.5, renamed); a function new in another file
// added or changed in the same commit (moved, or the file split: a file
// that had the function before keeps its own, a parallel implementation,
// not ours), also when the function kept its key but less than half of
// its body while the other file's new one has more (a class split whose
// old name took a new role); deleted, with its lines in
// a function of the same file that grew in that commit (inlined,
// CodeTracker's inline-method rule: as they were, or with the call's
// arguments in place of the parameters and a returned expression where
// the call stood). Lines that leave the
// function and appear in a function added or grown in the same commit
// are extracted (CodeTracker's extract-method rule, Jodavi & Tsantalis,
// FSE 2022), and so are lines that leave it for a function it now calls
// (delegation to an overload that held them already): that function
// joins the tracked scope, and when the tracked function is later
// deleted (the stub an extraction left) the walk goes on in it. Every step records its commit, date and kind,
// so a verdict can be checked with `git show`. A version that is not
// UTF-8 is read as ISO-8859-1 (old Apache sources), so it parses. Code
// outside any function (a field, a module-level table) has no function to
// follow: its file is followed, with a state at each commit that removes
// or restores one of the block's telling lines.
//
// The states Follow returns give the tracked descendant at any commit of
// the chain (At); Stage II (internal/audit/patchcheck) scores the fix
// lines against it at each state to build a presence timeline and reads
// the verdict of every cutoff off it, in one pass.
package track
