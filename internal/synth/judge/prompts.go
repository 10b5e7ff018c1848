package judge

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"
)

// PromptVersion names the prompt texts in prompts/*.tmpl. Change it with
// any edit to them; every judgement records it with the texts' hash.
const PromptVersion = "judge-v1"

//go:embed prompts/*.tmpl
var promptFS embed.FS

// The prompt templates, one file each, each defining "system" and "user".
const (
	promptStage1 = "stage1"
	promptStage2 = "stage2"
	promptRepair = "repair"
	promptWhole  = "whole"
)

var prompts = func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, name := range []string{promptStage1, promptStage2, promptRepair, promptWhole} {
		m[name] = template.Must(template.New(name).Option("missingkey=error").ParseFS(promptFS, "prompts/"+name+".tmpl"))
	}
	return m
}()

// promptData fills the templates.
type promptData struct {
	Type, Buggy, Fixed string
	Site, Trigger      string
	Line               int
	Reason             string
}

// render returns a template's system and user texts.
func render(name string, d promptData) (system, user string, err error) {
	t := prompts[name]
	var s, u strings.Builder
	if err := t.ExecuteTemplate(&s, "system", d); err != nil {
		return "", "", fmt.Errorf("render %s prompt: %w", name, err)
	}
	if err := t.ExecuteTemplate(&u, "user", d); err != nil {
		return "", "", fmt.Errorf("render %s prompt: %w", name, err)
	}
	return s.String(), u.String(), nil
}

// PromptHash returns the sha256 (hex) of PromptVersion and the template
// texts a rubric uses, so a judgement names the exact prompts behind it.
func PromptHash(rubric string) string {
	if rubric == RubricWhole {
		return promptHashes[1]
	}
	return promptHashes[0]
}

var promptHashes = [2]string{
	hashPrompts(promptStage1, promptStage2, promptRepair),
	hashPrompts(promptWhole),
}

func hashPrompts(names ...string) string {
	h := sha256.New()
	h.Write([]byte(PromptVersion))
	for _, n := range names {
		b, _ := promptFS.ReadFile("prompts/" + n + ".tmpl") // embedded: parsed above, so present
		fmt.Fprintf(h, "\x00%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
