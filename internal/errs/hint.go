package errs

import "strings"

// Option names a setting by its role, so a library can say which setting
// would fix an error without spelling a front end's name for it; the CLI
// renders each with its own flag (cli.optionFlags).
type Option string

// The options library hints name.
const (
	OptRepos    Option = "repos"     // the directory of local clones
	OptMapping  Option = "mapping"   // the repository → clone mapping file
	OptClone    Option = "clone"     // clone missing repositories
	OptCloneDir Option = "clone-dir" // the clone cache directory
	OptStrict   Option = "strict"    // stop at the first invalid benchmark record
	OptFormat   Option = "format"    // the benchmark format
)

// Options lists every Option, for a front end's test that it spells each.
var Options = []Option{OptRepos, OptMapping, OptClone, OptCloneDir, OptStrict, OptFormat}

// Flag is the default spelling of an option: the command-line flag of the
// same name. Error messages use it; a front end with other names renders
// the hint itself (HintError.Render).
func Flag(o Option) string { return "--" + string(o) }

// HintError is an error whose words name options by role: Text holds an
// {option} placeholder for each (e.g. "pass {repos} DIR or {clone}") and
// {err} where the cause goes (after ": " when absent).
type HintError struct {
	Text string
	Err  error
	// Kind, when set, is a sentinel of the library this error also
	// matches with errors.Is (e.g. repos.ErrNoClone); it is not shown.
	Kind error
}

// Hint is a HintError of text around err.
func Hint(kind, err error, text string) *HintError {
	return &HintError{Text: text, Err: err, Kind: kind}
}

func (e *HintError) Error() string { return e.Render(Flag) }

// Render is the message with each option spelled by spell.
func (e *HintError) Render(spell func(Option) string) string {
	s := e.Text
	for _, o := range Options {
		s = strings.ReplaceAll(s, "{"+string(o)+"}", spell(o))
	}
	cause := ""
	if e.Err != nil {
		cause = e.Err.Error()
	}
	if strings.Contains(s, "{err}") {
		return strings.Replace(s, "{err}", cause, 1)
	}
	if cause == "" {
		return s
	}
	return s + ": " + cause
}

func (e *HintError) Unwrap() error { return e.Err }

// Is matches Kind.
func (e *HintError) Is(target error) bool { return e.Kind != nil && target == e.Kind }
