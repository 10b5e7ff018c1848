// Package jvm owns the independent JVM verification of bug/fix pairs
// (rxsynth §5.4): it runs the buggy and the fixed method on a real JVM
// and records whether a concrete input makes the buggy method raise the
// labelled exception at the patched site while the fixed method does not.
//
// Pipeline, per batch of pairs:
//
//  1. Harness: each pair gets a package bfv.p<n> with classes B<n> and
//     F<n> holding the buggy and the fixed method verbatim (common
//     java.util/io/math/text/regex/function/stream imports, a no-arg
//     constructor for instance methods), A<n> holding the argument
//     vectors, and stub classes where needed.
//  2. Stubs: javac's raw diagnostics ("cannot find symbol", Object used
//     where a type is required) grow static stub fields, methods and
//     classes over at most 8 rounds. A stub class that is thrown or caught
//     extends RuntimeException; members reached as "super.m()" go in a base
//     class P<n> that B<n>/F<n> extend (an override stub returns the
//     method's type); the method's own annotations are blanked in the
//     harness (@Override overrides nothing there), keeping every line and
//     column. A diagnostic no rule fixes is final only in a round that
//     changed no stub, since javac reports a first guess's consequences in
//     the same run. Stub values are never null (0, "",
//     empty collections, new T()): the harness must not manufacture the
//     failure (§5.4). A pair that still does not compile is
//     "unconfirmed: cannot compile", not invalid.
//  3. Compilation: all pairs of a batch (default 100) go through one
//     in-process javac run per round, in a long-lived compile-server JVM;
//     errors are mapped back to pairs by file name. javac stops after flow
//     analysis when a round has errors, so every pair gets all its
//     diagnostics each round; a pair that compiled cleanly but whose
//     classes were not written goes first in the next round. The record
//     keeps the pair's rounds and its batch's javac runs. The compile
//     server (C1 only) compiles the next batch while the workers run
//     this one. In project mode with pairs of several projects, every
//     project is built first, then one pipeline runs across them
//     (project_pipeline.go): two compile lanes, each a long-lived javac
//     server, take the projects in turn and may run four batches ahead,
//     the next project's worker JVMs start while the previous one runs,
//     and the run side emits in project order; the javac runs of every
//     batch are the ones a project alone would get, so records are too.
//  4. Inputs: per parameter type a list of candidates — an ordinary value
//     first, then null and boundary values (0, ±1, MIN/MAX, NaN, "", " ",
//     "-", "1.5", "0x1", a 100k-char string, empty/one/three-element
//     arrays and collections, collections and maps holding null, a
//     default instance for other types) — combined in order of total
//     deviation from the all-ordinary vector, up to the call budget
//     (default 200 calls per pair). A pair gets four vectors per call of
//     its budget; a vector holding a candidate (an argument or the
//     receiver) whose construction threw on an earlier input is skipped
//     without a call (the record's skipped), so the budget goes to
//     inputs that can be built — a pair none of whose vectors is skipped
//     runs exactly the inputs it ran before.
//  5. Execution: one long-lived worker JVM (more with Workers) invokes the
//     methods reflectively, one call at a time on an executor thread with
//     a per-call timeout. A timeout halts the worker; System.exit is
//     trapped by a SecurityManager on JDK 17–23 and otherwise kills the
//     worker; either way the Go side records "timeout"/"exited" and
//     restarts it. StackOverflowError and OutOfMemoryError (-Xmx256m) are
//     ordinary outcomes. Workers run in their own process group and, as
//     root, their own network namespace (no network), with a private cwd
//     and java.io.tmpdir.
//  6. Criteria (§5.4, Table 8): (a) the buggy method raises the labelled
//     type T (or a subclass that is not itself one of the seven labels);
//     (b) (a) and the fixed method returns normally on that input; (c)
//     the buggy method raises T with its innermost frame inside the
//     method on a patched-site line, and the fixed method does not raise
//     T on a patched-site line. The patched site is the line diff's
//     deleted lines plus two context lines around each change (for an
//     inserted guard, the statement it protects), and the added lines
//     plus context on the fixed side. A pair is confirmed when (c) holds.
//
// Each record counts the buggy side's outcomes over the inputs tried
// (outcomes: returned, arg_error, threw <class>), so that "no input tried
// raised T" says whether every input returned, raised something else,
// or never got a receiver (issue 16's breakdown of unconfirmed pairs).
//
// Results go to executions.jsonl (append-only, resumable by pair_id) and
// a per-type table with Wilson 95% intervals (Tables 8 and 9's shape).
//
// Model-built harnesses (rxsynth §5.4, Table 8). Instead of the boundary
// search, a Builder asks a model (internal/llm, through a cached and
// budgeted Session) for at most MaxModelInputs argument vectors per pair,
// as Java expressions, and only those run — with the same harness, stubs,
// sandbox, budget and criteria, so the criteria are judged on the model's
// inputs alone, as Table 8 compares them. The regime sets what the model
// sees besides the label T (prompts/harness.tmpl, versioned and hashed):
// methods-only the two methods (the localisation control); diff-aided
// also their unified diff (the paper's primary, judge-independent arm);
// judge-fed the methods and the production judge's site, line, trigger
// and explanation from `synth validate`'s judgements.jsonl (a pair without
// a usable judgement gets no call: "no judgement"). Answers are read
// tolerantly with internal/llm/answer; one that cannot be read is recorded
// as unparseable, never guessed. A vector of the wrong arity, that is not
// one expression, or that assigns (the builder chooses arguments, not the
// state of stubbed collaborators, which stay non-null: §5.4's independence
// rule) is dropped before compiling; one javac rejects is dropped with its
// message, and the rest still run. Records carry the regime, model,
// prompt hash and raw answer, in harness-<regime>.jsonl apart from
// executions.jsonl (RunModel), resumable by pair id.
//
// Project mode (project.go, realclass.go, project_compile.go, inputs.go,
// deps.go, project_run.go). With Options.Projects a pair whose
// corpus.Source names a repository, commit, path and method span runs in
// its real class: the project's tree at that commit is exported with git
// archive and its production sources compiled once with javac (all of
// them for --project, one commit for many pairs; on demand through
// -sourcepath for pairs from many commits, as the Defects4J seeds are),
// with every production source root on the source path (mockito's
// cglib-and-asm/src), against --classpath jars and a jar folder; sources a
// build tool would generate from *.java.in templates are expanded. A Maven
// dependency of the same owner that --repos holds as a clone
// (jackson-databind's jackson-core) is compiled from that clone at the
// release tag the pom names, ahead of any newer system jar
// (-Xprefer:source); a version only the parent pom defines is the
// parent's release train for a module of its group (jackson-bom 2.9.0.pr3
// → jackson-core-2.9.0.pr3); a pre-release or snapshot the clone has no
// tag of is the release of its major.minor line it led to, else the last
// one before it (jackson-core 2.8.0.rc2 → jackson-core-2.8.0), and the
// build report's deps name the tag taken. A second source root that declares the main
// root's classes (joda-time's GWT emulation) is another build's copy and
// stays off the source path. A source encoding the pom declares
// (project.build.sourceEncoding: commons-lang 3's ISO-8859-1) is the
// build's, and such files are re-encoded as UTF-8 for the pairs (before,
// commons-lang built no class at all and its pairs compiled against
// Debian's commons-lang3 3.12 jar). The build records the jars javac read
// (-verbose); only those are on the pairs' compile classpath (the worker
// JVMs keep every jar). Pairs are batched by file, and the pairs of one
// file share one copy of it (variants.go): the real file with each
// pair's buggy and fixed method added to the method's class as variants
// under names of their own (name$bf<n>B/F, @Override blanked, the
// variant's own calls renamed to it unless the class overloads the
// name), so one javac run compiles each file of a batch once; a compile
// error fails only the pair whose variant it is in. Each side's class
// files are linked into a directory of its own and the worker runs each
// side through a child-first loader over that directory and the
// project's classes, so no two sides share static state; frames are
// reported under the real name and the real file's line. The class's
// other members and other project classes call the original method: only
// a path that re-enters the method through another member (not the
// variant's direct recursion) differs from a class with the method
// replaced in place. A class without a no-argument
// constructor gets one delegating to its shortest constructor, with
// ordinary values (concrete JDK classes for abstract JDK types:
// concreteJDK). No stub is grown: a compile error is final ("cannot
// compile against the project").
//
// A pair's verdict depends on its own pair and project only, never on
// its batch, on timing or on whether the build was cached (issue 16: two
// runs disagreed on two commons-cli pairs). A javac run of an on-demand
// project whose diagnostics name a source-path file no unit of the run
// owns (a file the build dropped: commons-cli's TypeHandler without
// commons-lang) goes again one unit a run, and a unit that does so alone
// goes again without the source path — before, the first such fault
// turned the source path off for the rest of the run. A build records
// the jars it read even when it read none (before, a fresh build that
// read none put every jar of --jar-dir on the pairs' classpath, Debian's
// commons-cli 1.5 among them, and its cached copy none). An on-demand
// build whose first run had errors keeps the better of javac's output
// with the source path and of a build without it that drops failing
// files until clean (project.go compileAgain), so that classes such as
// commons-cli's Util exist.
//
// Patch-anchored inputs (anchor.go; rxsynth §5's validation is anchored on
// the patch). Before the boundary search, each rule of anchorRules reads
// the lines the fix changed (deleted or added, and the unchanged if
// header of a changed branch; never other unchanged lines, a comment or
// a thrown message) and derives values for the parameters a
// guard names: null for `p == null`, an array holding null for
// `p[i] == null`, the constant of `p == T.C`, a literal the fix tests
// with (`p.startsWith("0X")`: "0X", "0X1"), the characters of char
// comparisons ("&#"), the length of another parameter's ordinary value
// for `i > s.length()`, the empty value for `p.isEmpty()`, sizes n-1, n,
// n+1 for `p.length() OP n`, integers n-1, n, n+1 for `p OP n`, other
// types for `p instanceof T` on an Object parameter (and, in project
// mode, a T built through its public API), the class literal of
// `p == T.class` for a Class parameter, the constant C of `C.equals(p)`
// (the method's class's own, in project mode), the receiver itself for
// `p == this` in an instance method (self_test: the argument class's
// bfSelf marker, which the worker replaces with the call's receiver, so
// the input is x.m(x)), and number texts at
// the parsers' edges ("2147483648", "1.", "0x") when the fix parses or
// catches NumberFormatException. The all-ordinary vector with one
// parameter set to a derived value is tried first, then two derived
// values together (at most 60 vectors), then the boundary search; records
// name the rules (anchors) and mark an anchored trigger. Nothing is
// derived for locals, and no field is written: when the changed lines
// read the receiver's state (a field, bare or through this., that is no
// parameter or local), the receiver_state rule tries receivers built
// through the class's public constructors and factories (its concrete
// subclasses' for an abstract class) with one argument at a time set to
// each of the first two values after its ordinary one (null, then a
// built or boundary value: 0, -1, "", an empty array), up to 12, since a
// constructor's arguments are what set the fields a guard tests
// (a field-guarded hashCode or toString had no other input at all).
// TestAnchorRules holds each rule's must-apply and must-not-apply
// examples; Options.NoAnchors (--no-anchors) turns them off.
//
// Inputs the search may build (both modes), and nothing else: literals of
// the JDK types (values.go; strings include "", " ", "-", "0x", "1e"),
// the buggy method's own string literals (and each with "1" appended)
// for a String parameter and its integer literals above 1 as n-1, n,
// n+1 for an integral one, JDK collections, maps and arrays of those,
// the patch-anchored values above (literals, JDK values, arrays and
// lists of ordinary elements, constants and class literals the fix
// compares with, project values built as below)
// and, for a project type, null and values built only through the public
// API javap lists — public constructors (copy constructors only when
// there is no other) and static factories, and one public setter called
// with a boundary value on such a value. A constructor with two or more
// numeric primitive parameters is also called with them ascending (1,
// 2, 3; 1.5, 2.5, 3.5), since one ordinary value for every bound breaks
// a lower < upper precondition (commons-math's distributions). A constructor's or factory's
// own project-type arguments are built the same way, to a nesting of
// maxBuildDepth (receivers.go), and null only below it; an abstract type
// or an interface is built through up to maxSubtypes concrete project
// classes that extend or implement it, directly or through abstract
// classes and subinterfaces (to maxSubtypeDepth levels; read from the
// sources' class declarations with comments and literals blanked, each
// by its full name; an on-demand build also compiles those of the pairs'
// classes); an Object parameter also gets a value of the method's own
// class built the same way (equals, compareTo). Project mode: an
// instance method's receiver is one more
// dimension of the search — the class's no-argument constructor
// (declared, or added delegating to its shortest one) for a concrete
// class, then up to maxReceivers values built as above through the
// class's public constructors and factories, or its concrete subclasses'
// for an abstract class, with one setter variant (the class looked up
// by its full name: a simple name can be another package's class); a
// receiver whose construction throws skips that input only (the worker
// reports it as an argument error, naming the argument, and later
// vectors holding it are skipped without a call). No collaborator is made to return anything: there
// are no mocks, and no value is built by writing a field or by
// reflection, so no collaborator can be forced to return an exceptional
// value (§5.4's independence rule).
//
// Not done: receiver field states beyond what public constructors
// (with one boundary argument), factories and one setter give (the model
// chooses arguments only); values produced by instance methods of other
// objects (jackson's JsonParser from JsonFactory.createParser, a
// configured DeserializationContext): most of jackson-databind's
// unconfirmed pairs need them; builders writing whole harnesses.
package jvm
