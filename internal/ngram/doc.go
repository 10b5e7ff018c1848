// Package ngram owns benchforge's built-in code language model: a generic
// code tokenizer, an interpolated modified Kneser–Ney n-gram model over its
// tokens (train from directories and ZIP archives, save/load as .bfng,
// score, sample) and an OpenAI-compatible HTTP server for it. It is the
// small reference model of benchchecker §3.3/§4.1 (entropy of a target
// given a query) and a local stand-in target model for the logit baselines
// of §5.1 (Loss, Zlib, Min-k%), so its log-probabilities must be
// calibrated: every next-token distribution sums to 1.
//
// # Tokens
//
// Tokenize is one generic lexer for Java, Python and C-family code:
// identifiers, numbers, string/char literals, operators by maximal munch,
// with comment prose lexed as words. A single blank is glued to the token
// that follows (" foo", as byte-pair tokenizers do) and newline+indent runs
// are tokens, so the concatenated tokens give the text back exactly and an
// order-6 context spans about six lexemes. The tree-sitter lexer of
// internal/code (code.Lex) is not offered: on JDK ArrayList.java it ran at
// 0.95 MB/s against this lexer's 36.6 MB/s (same shared machine), which
// would make lexing alone take ~50 s of a 50 MB training run, and this
// package needs a lexer that accepts any bytes (prompts cut mid-token,
// unparsable snippets) and reconstructs text byte for byte.
//
// # Smoothing
//
// Interpolated modified Kneser–Ney (Chen & Goodman 1998), with KenLM's
// adjusted counts (continuation counts N1+(•w) below the top order, raw
// counts for n-grams starting at <s>) and three discounts D1, D2, D3+ per
// order estimated from counts-of-counts. Kneser–Ney is chosen because it is
// the best-calibrated n-gram estimator — perplexity and entropy are only
// meaningful on a proper distribution, unlike stupid backoff's scores — and
// interpolation keeps lower-order evidence for seen contexts. The lowest
// level is uniform over the vocabulary plus <unk>; an unknown token gets
// p(<unk>|h) times a byte-unigram spelling model, so any text has a finite,
// length-sensitive log-probability. Tiny corpora whose counts-of-counts
// cannot define a discount fall back to 0.5, 1.0, 1.5. Note that Kneser–Ney
// discounts singletons heavily (D1 ≈ 0.7–0.97), so a model reproduces text
// seen once less reliably than text seen a few times.
//
// # Capacity knobs
//
// A model can be made to remember less of its training text, as a
// testbed target standing in for a pretrained model must (see
// internal/audit/testbed): Options.Order bounds the context;
// Options.MinCount is a count cutoff that drops every n-gram of order ≥ 2
// seen fewer times (so only repeated text is memorised, as LLMs memorise
// duplicated data best); Options.DiscountScale multiplies the Kneser–Ney
// discounts, moving mass from seen continuations to the interpolated
// lower orders; Options.MaxNGrams is a budget relative to the data (the
// cutoff of each order is raised until at most that many n-grams remain,
// so one repository's rare sequences are forgotten among many); and
// Options.SplitIdentifiers trains on sub-word pieces of identifiers
// (SplitIdentifiers: "getFooBar" → "get" "Foo" "Bar"; saved in the model
// file, format version 2), so a model can spell a name it never saw, as a
// sub-word LLM can. Each keeps every distribution proper.
//
// # Cache component
//
// Model.WithCache mixes in a cache model estimated on the request's own
// text (Kuhn & De Mori 1990; Tu, Su & Devanbu 2014, "On the localness of
// software"): it copies what followed the same last tokens earlier in the
// prompt, including identifiers the vocabulary lacks, standing in for a
// transformer's in-context copying. It is not saved with the model;
// `lm serve --cache-weight W` sets it.
//
// # Counting and storage
//
// Training maps tokens to uint32 ids and builds one sorted trie level per
// order without hashing: the positions of the k-grams are grouped by their
// (k-1)-gram prefix node (counting sort) and sorted by last word, so each
// context's successors are contiguous and sorted (binary search for
// scoring, direct iteration for sampling). Measured with /usr/bin/time -v
// on `benchforge lm train` over 50 MB of JDK sources (11.0 M tokens, 16.6 M
// n-grams at order 6) on a shared, overloaded 2-core machine: 41.5–47.3 s
// wall, 9.8–12.2 s user CPU, 669–725 MB max RSS; the .bfng file is 273 MB.
//
// # Candidates
//
// A step's candidates are the children of its base context; their
// probabilities up to that context depend on the trie node alone, so they
// are computed once per node, with their sorted order, into a bounded
// memo (candidates.go), and a step applies only its deeper levels, term
// by term as prob does, so values and order are bit-identical to scoring
// each candidate with prob and sorting (BenchmarkServeVsEcho measures
// the served path against a trivial echo server). A step's finished list
// depends on its deepest context node alone, so a step reached a second
// time is kept too, with its sampling weights per temperature (no exp
// per candidate when it recurs); the memo holds no lock on the request
// path and is renewed when its budget is spent. TestServeGolden pins the
// served outputs byte for byte.
//
// # Sampling
//
// Each step takes the successors of the longest matching context (widened
// to shorter contexts while at most 512), computes their exact interpolated
// probabilities, and samples with temperature/top-k/top-p; the remaining
// backoff mass is a "rest" bucket drawn exactly by walking down the
// interpolation chain. Temperature 0 is greedy argmax over the candidates.
// The prompt's last token is healed (the first generated token must extend
// it). Given a seed, results are deterministic.
//
// A step reached for the first time is drawn without listing it
// (sample.go, "Fresh steps"): the total weight and the running sums are
// estimated from per-table weights within a bound, and the draw is taken
// only when the random point is clear of them by that bound; otherwise
// the list is built and pick decides, so draws stay pick's bit for bit
// (TestDrawFreshMatchesPick). The backoff draw over a context with many
// children searches its kept running sums the same way
// (TestSearchDiscountedMatchesWalk).
package ngram
