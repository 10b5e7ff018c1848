package release

import (
	"bytes"
	_ "embed"
	"fmt"
	"text/template"
)

//go:embed datasheet.md.tmpl
var datasheetText string

var datasheetTmpl = template.Must(template.New("datasheet").Parse(datasheetText))

// RenderDatasheet renders DATASHEET.md from the manifest's description and
// counts alone, so a check can re-render it and compare.
func RenderDatasheet(m *Manifest) ([]byte, error) {
	var b bytes.Buffer
	if err := datasheetTmpl.Execute(&b, struct {
		M *Manifest
		C Counts
	}{m, m.Counts}); err != nil {
		return nil, fmt.Errorf("render datasheet: %w", err)
	}
	return b.Bytes(), nil
}
