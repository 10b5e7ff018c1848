// Package refindex owns Stage I's reference index: for every word, the
// number of repositories of a reference corpus that contain it
// (benchchecker §3.3 "Distinctiveness", §4.1 Challenge 2). The paper uses
// OctoPack / The Stack; targets are single words so that distinctiveness
// is one constant-time lookup in a precomputed word → repository-frequency
// dictionary. Stage I consumes it through the RepoFreq interface.
//
// # Words
//
// A word is a maximal run of ASCII letters, digits, '_', '$' and non-ASCII
// Unicode letters and digits that does not start with a digit, at most
// MaxWordLen (100) bytes long (see Words). Runs that start with a digit
// (number literals such as 0x1F, 10L) yield no word. Words are
// case-sensitive. Comments and strings are not skipped: a word in a
// licence header or a docstring counts like an identifier, which is what
// a model trained on raw files sees.
//
// # Repositories
//
// A repository is
//   - DIR corpus: a top-level folder (each top-level file is a repository
//     of its own, so a Python stdlib module os.py is one);
//   - ZIP corpus: the first path element of an entry, such as a module of
//     the JDK's src.zip (java.base/java/lang/String.java → java.base);
//   - Parquet corpus: the value of the repository column of a row (rows
//     are files; The Stack's max_stars_repo_name or repo_name).
//
// DIR and ZIP files are kept by extension (DefaultExts), at most 4 MiB,
// not binary (no NUL in the first 8 KiB); hidden entries and __pycache__
// are skipped. With no corpus given the default is DefaultSources: the
// JDK src.zip modules and the Python standard library packages.
//
// # File format
//
// A versioned header (magic "BFREFIDX", format version, word-definition
// version, repository total, word and name counts, payload length), the
// sorted words front-coded with their counts as uvarints, the sorted
// repository names, and a CRC-32C of everything before it; see the
// comment on WriteTo. On load the words are decoded into one byte slice
// with offsets and an open-addressing hash table (load factor <= 1/2) is
// built over them, so RepoFreq is one FNV-1a hash and a short probe
// verified against the stored word: O(1) expected. A file that is not an
// index, has another version, is truncated or fails its checksum is an
// error wrapping errs.ErrInput naming the path.
//
// # Shards, Merge and imports
//
// An index over a corpus too big for one machine is built shard by shard
// (one `benchforge index build` per slice of repositories, on any batch
// system) and joined with Merge. Counts add, which is right only when the
// shards hold disjoint repositories; Merge keeps every shard's repository
// names and refuses shards that share one.
//
// An index can also be imported from a word,count[,repos] CSV computed
// elsewhere (ImportCSV); imported repositories are anonymous, so their
// overlap with other shards cannot be checked. DuckDB over The Stack's
// Parquet files (RE2's regexp_extract_all approximates Words: it does not
// drop digit-led runs' tails such as the xFF of 0xFF nor cap the length,
// and matches ASCII only):
//
//	COPY (
//	  SELECT word, count(DISTINCT repo) AS count
//	  FROM (SELECT max_stars_repo_name AS repo,
//	               unnest(regexp_extract_all(content, '[A-Za-z_$][A-Za-z0-9_$]*')) AS word
//	        FROM read_parquet('the-stack/data/java/*.parquet'))
//	  GROUP BY word
//	) TO 'words.csv' (HEADER, DELIMITER ',');
//	SELECT count(DISTINCT max_stars_repo_name) FROM read_parquet('the-stack/data/java/*.parquet');
//
// then `benchforge index import --csv words.csv --repo-count N --out ref.idx`.
// The same query runs on BigQuery (REGEXP_EXTRACT_ALL with UNNEST) and
// Spark SQL (explode(regexp_extract_all(content, '([A-Za-z_$][A-Za-z0-9_$]*)', 1))).
// To import a Parquet corpus without this package's Parquet reader, export
// it to CSV this way.
//
// # Scale (measured)
//
// On the 2-core development machine (shared, so wall times are noisy):
//
//   - JDK 17 src.zip (15,143 files, 202 MB uncompressed, 70 modules):
//     365,619 words, a 2.6 MB index file; ~3.6 s of CPU
//     (go test -bench BuildJDK -benchtime=1x ./internal/audit/refindex);
//   - the default corpus (JDK 17 modules + 201 Python 3.11 stdlib
//     packages and modules = 271 repositories): 453,052 words, 3.4 MB,
//     4.4 s user CPU, 148 MB peak RSS (benchforge index build --out ref.idx);
//   - RepoFreq: 38 ns per lookup over a 500k-word index, half the words
//     absent, about 26 million lookups/s on one core
//     (go test -bench Lookup -benchtime=3000000x).
//
// Memory while building is about the vocabulary (map of words) plus one
// uint32 per (repository, distinct word) pair; a loaded index needs its
// word text plus 16–24 bytes per word (offset, count, hash slots).
package refindex
