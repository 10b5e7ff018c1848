package release

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// File formats of a release.
const (
	FormatJSONL    = "jsonl"    // one object per line
	FormatJSON     = "json"     // a JSON array, one element per line
	FormatCSV      = "csv"      // header row, ';'-joined arrays
	FormatSchema   = "schema"   // a JSON Schema document
	FormatMarkdown = "markdown" // the datasheet
)

// rawRecord is one record read back from a release file: its 1-based line,
// its value as decoded with UseNumber (for the schema), and its JSON.
type rawRecord struct {
	Line  int
	Value any
	JSON  []byte
}

// Problem is one defect a check found, located at File:Line (Line 0 when
// the problem concerns the whole file) and naming the Field when there is
// one.
type Problem struct {
	File  string `json:"file"`
	Line  int    `json:"line,omitempty"`
	Field string `json:"field,omitempty"`
	Msg   string `json:"msg"`
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
	}
	if p.Field != "" {
		return loc + ": field " + p.Field + ": " + p.Msg
	}
	return loc + ": " + p.Msg
}

// encodeJSONL renders recs one per line.
func encodeJSONL[T any](recs []T) ([]byte, error) {
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// encodeJSONArray renders recs as a JSON array with one element per line,
// so a checker can name the line of a bad element.
func encodeJSONArray[T any](recs []T) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[")
	for i, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(line)
	}
	b.WriteString("\n]\n")
	return b.Bytes(), nil
}

// columns lists the JSON field names of struct type T in declaration order.
func columns(t reflect.Type) []string {
	var cols []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name != "-" && name != "" {
			cols = append(cols, name)
		}
	}
	return cols
}

// encodeCSV renders recs (flat structs) as CSV with a header row; arrays
// of strings are joined with ';', absent (omitted) fields are empty cells.
func encodeCSV[T any](recs []T) ([]byte, error) {
	var zero T
	cols := columns(reflect.TypeOf(zero))
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(cols); err != nil {
		return nil, err
	}
	for _, r := range recs {
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		m, err := decodeValue(raw)
		if err != nil {
			return nil, err
		}
		obj := m.(map[string]any)
		row := make([]string, len(cols))
		for i, c := range cols {
			cell, err := csvCell(obj[c])
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", c, err)
			}
			row[i] = cell
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

func csvCell(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok || strings.Contains(s, ";") {
				return "", fmt.Errorf("array element %v cannot be ';'-joined", e)
			}
			parts[i] = s
		}
		return strings.Join(parts, ";"), nil
	}
	return "", fmt.Errorf("value of type %T has no CSV form", v)
}

func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// readJSONL reads every non-blank line of data as one JSON value.
func readJSONL(name string, data []byte) ([]rawRecord, []Problem) {
	var recs []rawRecord
	var probs []Problem
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := decodeValue(line)
		if err != nil {
			probs = append(probs, Problem{File: name, Line: i + 1, Msg: "not a JSON value: " + err.Error()})
			continue
		}
		recs = append(recs, rawRecord{Line: i + 1, Value: v, JSON: bytes.TrimSpace(line)})
	}
	return recs, probs
}

// readJSONArray reads a JSON array, locating each element by the line its
// first byte is on.
func readJSONArray(name string, data []byte) ([]rawRecord, []Problem) {
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		return nil, []Problem{{File: name, Line: lineAt(dec.InputOffset()), Msg: "not a JSON array"}}
	}
	var recs []rawRecord
	for dec.More() {
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return recs, []Problem{{File: name, Line: lineAt(dec.InputOffset()), Msg: "malformed array element: " + err.Error()}}
		}
		start = elementStart(data, start)
		v, err := decodeValue(raw)
		if err != nil {
			return recs, []Problem{{File: name, Line: lineAt(start), Msg: "malformed array element: " + err.Error()}}
		}
		recs = append(recs, rawRecord{Line: lineAt(start), Value: v, JSON: raw})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return recs, []Problem{{File: name, Line: lineAt(dec.InputOffset()), Msg: "array is not closed"}}
	}
	if _, err := dec.Token(); err != io.EOF {
		return recs, []Problem{{File: name, Line: lineAt(dec.InputOffset()), Msg: "trailing data after the array"}}
	}
	return recs, nil
}

// elementStart is where the array element whose decoding began at off
// starts: InputOffset before Decode may sit before the separating comma
// and whitespace, which are skipped.
func elementStart(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.ContainsRune(", \t\r\n", rune(data[off])) {
		off++
	}
	return off
}

// readCSV reads a CSV file with a header row into objects typed by s:
// cells of integer, number and boolean properties are parsed (a cell that
// does not parse stays a string, which the schema then rejects), array
// cells are split on ';', and an empty cell is an absent field, except an
// empty array and a required string, which are [] and "".
func readCSV(name string, data []byte, s *Schema) ([]rawRecord, []Problem) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = 0
	header, err := r.Read()
	if err != nil {
		return nil, []Problem{{File: name, Line: 1, Msg: "no CSV header: " + err.Error()}}
	}
	probs := checkHeader(name, header, s)
	var recs []rawRecord
	for {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// FieldPos is only defined after a successful Read.
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			probs = append(probs, Problem{File: name, Line: line, Msg: "malformed CSV: " + err.Error()})
			if !errors.As(err, &pe) || pe.Err != csv.ErrFieldCount {
				break
			}
			continue
		}
		line, _ := r.FieldPos(0)
		raw, err := json.Marshal(csvObject(header, row, s))
		if err != nil {
			probs = append(probs, Problem{File: name, Line: line, Msg: err.Error()})
			continue
		}
		v, _ := decodeValue(raw)
		recs = append(recs, rawRecord{Line: line, Value: v, JSON: raw})
	}
	return recs, probs
}

// checkHeader reports duplicate columns and columns the schema lacks.
func checkHeader(name string, header []string, s *Schema) []Problem {
	var probs []Problem
	seen := map[string]bool{}
	for _, h := range header {
		if seen[h] {
			probs = append(probs, Problem{File: name, Line: 1, Field: h, Msg: "duplicate column"})
		}
		seen[h] = true
		if s.Properties[h] == nil {
			probs = append(probs, Problem{File: name, Line: 1, Field: h, Msg: "unknown column (not in the schema)"})
		}
	}
	return probs
}

// csvObject is one CSV row as an object of the schema's columns, typed by
// csvValue.
func csvObject(header, row []string, s *Schema) map[string]any {
	obj := map[string]any{}
	for i, cell := range row {
		p := s.Properties[header[i]]
		if p == nil {
			continue
		}
		if v, ok := csvValue(cell, p, contains(s.Required, header[i])); ok {
			obj[header[i]] = v
		}
	}
	return obj
}

func csvValue(cell string, p *Schema, required bool) (any, bool) {
	switch p.Type {
	case "array":
		if cell == "" {
			return []any{}, true
		}
		var out []any
		for _, part := range strings.Split(cell, ";") {
			out = append(out, part)
		}
		return out, true
	case "string":
		if cell == "" && !required {
			return nil, false
		}
		return cell, true
	}
	if cell == "" {
		return nil, false
	}
	if v, ok := csvScalar(cell, p.Type); ok {
		return v, true
	}
	return cell, true
}

// csvScalar parses a non-empty cell of an integer, number or boolean
// column, only when it is the value's canonical form.
func csvScalar(cell, typ string) (any, bool) {
	switch typ {
	case "integer", "number":
		if v, err := decodeValue([]byte(cell)); err == nil {
			if n, ok := v.(json.Number); ok && n.String() == cell {
				return n, true
			}
		}
	case "boolean":
		if b, err := strconv.ParseBool(cell); err == nil && (cell == "true" || cell == "false") {
			return b, true
		}
	}
	return nil, false
}
