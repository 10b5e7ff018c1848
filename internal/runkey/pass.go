package runkey

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

// PassFile is the settings file beside a record log: records is the log's
// path, and the settings go to records + ".settings.json".
func PassFile(records string) string { return records + ".settings.json" }

// CheckPass keeps one record log to one set of settings, for the commands
// whose records carry no per-record settings: the first run writes now to
// PassFile(records); a later run with the same settings resumes; one with
// other settings is refused with an error (wrapping errs.ErrUsage) naming
// each differing setting, so its records are never reused or relabelled
// under settings that did not decide them. flag names the output option
// for the remedy (e.g. "--out"). A log written before settings were
// recorded gets them now.
func CheckPass(records, flag string, now Settings) error {
	path := PassFile(records)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return writePass(path, now)
	case err != nil:
		return fmt.Errorf("read the settings of %s: %w", records, err)
	}
	var old Settings
	if err := json.Unmarshal(data, &old); err != nil {
		return fmt.Errorf("%s: %w: %v; remove it to adopt this run's settings", path, errs.ErrInput, err)
	}
	if d := now.Diff(old); len(d) > 0 {
		return fmt.Errorf("%s holds records made with other settings (%s); they are kept and not reused — rerun with those settings to resume, or give another %s: %w",
			records, strings.Join(d, "; "), flag, errs.ErrUsage)
	}
	return nil
}

func writePass(path string, s Settings) error {
	return output.WriteJSON(path, s)
}
