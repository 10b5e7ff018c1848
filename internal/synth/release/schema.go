package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Draft is the JSON Schema dialect every release schema declares.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schema is the subset of JSON Schema 2020-12 a release uses: type,
// properties, required, additionalProperties (false only), items, enum
// (strings) and minimum, plus the annotations $schema, $id, title and
// description. ParseSchema rejects any other keyword, so a release can
// never be "validated" against a constraint the validator ignores.
type Schema struct {
	Schema               string             `json:"$schema,omitempty"`
	ID                   string             `json:"$id,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
}

var jsonTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "array": true, "object": true}

// SchemaFor generates the schema of the struct type of v by reflection:
// every JSON field becomes a property; fields without omitempty are
// required; objects allow no other properties; tags `desc` (description),
// `enum` (a named vocabulary) and `min` (minimum) refine a field.
func SchemaFor(v any, id, title string) (*Schema, error) {
	t := reflect.TypeOf(v)
	s, err := schemaOf(t, "")
	if err != nil {
		return nil, fmt.Errorf("schema for %s: %w", t, err)
	}
	s.Schema, s.ID, s.Title = Draft, id, title
	return s, nil
}

// kindTypes are the JSON Schema types of the Go kinds a release record
// holds.
var kindTypes = map[reflect.Kind]string{
	reflect.String: "string", reflect.Bool: "boolean",
	reflect.Int: "integer", reflect.Int8: "integer", reflect.Int16: "integer", reflect.Int32: "integer", reflect.Int64: "integer",
	reflect.Uint: "integer", reflect.Uint8: "integer", reflect.Uint16: "integer", reflect.Uint32: "integer", reflect.Uint64: "integer",
	reflect.Float32: "number", reflect.Float64: "number",
	reflect.Slice: "array", reflect.Array: "array", reflect.Struct: "object",
}

func schemaOf(t reflect.Type, enum string) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	typ, ok := kindTypes[t.Kind()]
	if !ok {
		return nil, fmt.Errorf("unsupported kind %s", t.Kind())
	}
	s := &Schema{Type: typ}
	switch typ {
	case "string":
		if enum != "" {
			vals, ok := enumSets[enum]
			if !ok {
				return nil, fmt.Errorf("unknown enum %q", enum)
			}
			s.Enum = append([]string(nil), vals...)
		}
	case "array":
		it, err := schemaOf(t.Elem(), enum)
		if err != nil {
			return nil, err
		}
		s.Items = it
	case "object":
		if err := s.addFields(t); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// addFields makes the exported JSON fields of struct type t the object
// schema's properties, those without omitempty required, no others
// allowed.
func (s *Schema) addFields(t reflect.Type) error {
	s.Properties = map[string]*Schema{}
	no := false
	s.AdditionalProperties = &no
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs, err := fieldSchema(f)
		if err != nil {
			return err
		}
		s.Properties[name] = fs
		if !strings.Contains(opts, "omitempty") {
			s.Required = append(s.Required, name)
		}
	}
	return nil
}

// fieldSchema is the schema of struct field f, refined by its desc, enum
// and min tags.
func fieldSchema(f reflect.StructField) (*Schema, error) {
	fs, err := schemaOf(f.Type, f.Tag.Get("enum"))
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", f.Name, err)
	}
	fs.Description = f.Tag.Get("desc")
	if m := f.Tag.Get("min"); m != "" {
		v, err := strconv.ParseFloat(m, 64)
		if err != nil {
			return nil, fmt.Errorf("field %s: min tag %q: %w", f.Name, m, err)
		}
		fs.Minimum = &v
	}
	return fs, nil
}

// Marshal renders the schema as indented JSON with a final newline.
func (s *Schema) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseSchema reads a schema document, rejecting keywords outside the
// supported subset (errs.ErrUnsupported) and malformed ones (errs.ErrInput).
func ParseSchema(data []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Schema
	if err := dec.Decode(&s); err != nil {
		if strings.Contains(err.Error(), "unknown field") {
			return nil, fmt.Errorf("parse schema: %w: %v (only type, properties, required, additionalProperties, items, enum, minimum and annotations are supported)", errs.ErrUnsupported, err)
		}
		return nil, fmt.Errorf("parse schema: %w: %v", errs.ErrInput, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("parse schema: %w: trailing data after the schema object", errs.ErrInput)
	}
	if err := s.check(""); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	return &s, nil
}

// check verifies a parsed schema is well formed within the subset.
func (s *Schema) check(path string) error {
	at := path
	if at == "" {
		at = "(root)"
	}
	if err := s.checkKeywords(at); err != nil {
		return err
	}
	if err := s.checkProperties(path, at); err != nil {
		return err
	}
	if s.Items != nil {
		return s.Items.check(path + "[]")
	}
	return nil
}

// checkKeywords verifies the node's own type, additionalProperties and
// minimum (at names it in errors).
func (s *Schema) checkKeywords(at string) error {
	if s.Type != "" && !jsonTypes[s.Type] {
		return fmt.Errorf("%w: %s: type %q is not a JSON Schema type", errs.ErrInput, at, s.Type)
	}
	if s.AdditionalProperties != nil && *s.AdditionalProperties {
		return fmt.Errorf("%w: %s: only additionalProperties false is supported", errs.ErrUnsupported, at)
	}
	if s.Minimum != nil && (math.IsNaN(*s.Minimum) || math.IsInf(*s.Minimum, 0)) {
		return fmt.Errorf("%w: %s: minimum is not finite", errs.ErrInput, at)
	}
	return nil
}

// checkProperties verifies that every required property has a schema and
// every property schema is well formed.
func (s *Schema) checkProperties(path, at string) error {
	for _, r := range s.Required {
		if s.Properties == nil || s.Properties[r] == nil {
			return fmt.Errorf("%w: %s: required property %q has no schema", errs.ErrInput, at, r)
		}
	}
	for name, p := range s.Properties {
		if p == nil {
			return fmt.Errorf("%w: %s: property %q has a null schema", errs.ErrInput, at, name)
		}
		if err := p.check(join(path, name)); err != nil {
			return err
		}
	}
	return nil
}

// FieldError is one violation, at a dotted field path ("judge.confidence",
// "example_bug_ids[2]"; empty for the record itself).
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) String() string {
	if e.Field == "" {
		return e.Msg
	}
	return "field " + e.Field + ": " + e.Msg
}

// Validate checks v, a value decoded by encoding/json with UseNumber
// (string, json.Number, bool, nil, []any, map[string]any), against s and
// returns every violation in a stable order.
func (s *Schema) Validate(v any) []FieldError {
	var out []FieldError
	s.validate(v, "", &out)
	return out
}

func (s *Schema) validate(v any, path string, out *[]FieldError) {
	bad := func(format string, args ...any) {
		*out = append(*out, FieldError{Field: path, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Type != "" && !hasType(v, s.Type) {
		bad("want %s, got %s", s.Type, typeName(v))
		return
	}
	if msg := s.valueProblem(v); msg != "" {
		bad("%s", msg)
	}
	if msg := s.minimumProblem(v); msg != "" {
		bad("%s", msg)
	}
	switch val := v.(type) {
	case map[string]any:
		s.validateObject(val, path, out)
	case []any:
		if s.Items != nil {
			for i, e := range val {
				s.Items.validate(e, fmt.Sprintf("%s[%d]", path, i), out)
			}
		}
	}
}

// valueProblem is what is wrong with v under the schema's enum, or "".
func (s *Schema) valueProblem(v any) string {
	if len(s.Enum) == 0 {
		return ""
	}
	if str, ok := v.(string); ok && contains(s.Enum, str) {
		return ""
	}
	return fmt.Sprintf("value %s is not one of %s", short(v), strings.Join(s.Enum, ", "))
}

// minimumProblem is what is wrong with number v under the schema's
// minimum, or "".
func (s *Schema) minimumProblem(v any) string {
	n, ok := v.(json.Number)
	if !ok || s.Minimum == nil {
		return ""
	}
	if f, err := n.Float64(); err == nil && f < *s.Minimum {
		return fmt.Sprintf("value %s is below the minimum %g", n, *s.Minimum)
	}
	return ""
}

// validateObject checks an object's required fields and, in key order,
// each field against its property schema.
func (s *Schema) validateObject(val map[string]any, path string, out *[]FieldError) {
	for _, r := range s.Required {
		if _, ok := val[r]; !ok {
			*out = append(*out, FieldError{Field: join(path, r), Msg: "required field is missing"})
		}
	}
	keys := make([]string, 0, len(val))
	for k := range val {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := s.Properties[k]
		if p == nil {
			if s.AdditionalProperties != nil && !*s.AdditionalProperties {
				*out = append(*out, FieldError{Field: join(path, k), Msg: "unknown field (additionalProperties is false)"})
			}
			continue
		}
		p.validate(val[k], join(path, k), out)
	}
}

// typeChecks report whether a decoded JSON value has a JSON Schema type.
var typeChecks = map[string]func(v any) bool{
	"string":  func(v any) bool { _, ok := v.(string); return ok },
	"boolean": func(v any) bool { _, ok := v.(bool); return ok },
	"number": func(v any) bool {
		_, ok := number(v)
		return ok
	},
	"integer": func(v any) bool {
		f, ok := number(v)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	},
	"array":  func(v any) bool { _, ok := v.([]any); return ok },
	"object": func(v any) bool { _, ok := v.(map[string]any); return ok },
}

func hasType(v any, t string) bool {
	check, ok := typeChecks[t]
	return ok && check(v)
}

// number is v's value when it is a json.Number that parses as a float.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
