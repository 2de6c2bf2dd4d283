// Command values-schema writes a Helm chart's values.schema.json (JSON Schema draft-07) from its
// values.yaml and the comments in it, on standard output:
//
//	values-schema helm/syncgc/values.yaml >helm/syncgc/values.schema.json
//
// Every key of values.yaml becomes a property, whose schema is inferred from the default value and
// completed by the `@schema` annotation in the comment above the key:
//
//   - type: boolean, integer, number or string from a scalar, array from a list, object from a map.
//     A map that is not empty is closed: its keys are its properties and no other key is allowed
//     (additionalProperties: false), each key's schema inferred in turn. An annotation that gives
//     $ref or additionalProperties takes the map as a whole instead (its keys are then only an
//     example, as in resources), and the keys under it are not visited. A list's items are not
//     inferred: the annotation gives them.
//
//   - description: the key's helm-docs description (its comment from the last `# --` line on, as
//     helm/README.md shows it).
//
//   - the annotation: a YAML map of JSON Schema keywords, either on one line, in flow style,
//
//     # @schema {minimum: 1}
//
//     or in a block between two `# @schema` lines,
//
//     # @schema
//     # type: [integer, string]
//     # oneOf: [{type: integer, minimum: 1}, {type: string, pattern: '^[0-9]+%$'}]
//     # @schema
//
//     placed before the key's `# --` line (helm-docs reads a description from that line on, so its
//     table of values never shows an annotation). Its keywords replace the inferred ones. $ref
//     drops the inferred type, and may go only with description, title, default, examples and
//     $comment: draft-07 ignores every other keyword beside a $ref (allOf: [{$ref: ...}] combines).
//     A `# @schema.root` block, between two such lines in the file's first comment (a blank line
//     before the first key), gives the root's keywords: title, definitions, and properties for
//     keys that values.yaml has not (global).
//
// The schema is checked before it is written: every keyword of an annotation must be draft-07's (a
// validator ignores a misspelt `minimun`), every `@schema` line of the file must have been used,
// the schema must compile with the validator helm uses (santhosh-tekuri/jsonschema/v6), and
// values.yaml's own defaults must pass it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

const draft07 = "http://json-schema.org/draft-07/schema#"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: values-schema VALUES_YAML >values.schema.json")
		os.Exit(2)
	}
	out, err := generate(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "values-schema: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}

func generate(path string) ([]byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a YAML map")
	}
	g := &generator{}
	root := newObject()
	root.set("$schema", draft07)
	rootAnnotation, err := g.annotation("(root)", doc.HeadComment, "@schema.root")
	if err != nil {
		return nil, err
	}
	if err := g.schema("", doc.Content[0], rootAnnotation, "", root); err != nil {
		return nil, err
	}
	if want := len(annotationLine.FindAll(src, -1)); g.lines != want {
		return nil, fmt.Errorf("%d of its %d @schema lines are not above a key whose schema is generated: an annotation "+
			"goes right above a key, before its `# --` description, and not under a map that an annotation takes "+
			"as a whole ($ref or additionalProperties)", want-g.lines, want)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, root); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	if err := check(out.Bytes(), src); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

var annotationLine = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*@schema(\.root)?([ \t].*)?$`)

type generator struct {
	lines int // @schema lines used
}

// schema fills s with the schema of the value val at path (a dotted path, "" for the root), given
// its annotation (nil if none) and description.
func (g *generator) schema(path string, val *yaml.Node, ann *object, desc string, s *object) error {
	for val.Kind == yaml.AliasNode {
		val = val.Alias
	}
	where := path
	if where == "" {
		where = "(root)"
	}
	if ann == nil {
		ann = newObject()
	}
	if title, ok := ann.get("title"); ok {
		s.set("title", title)
	}
	if desc != "" {
		s.set("description", desc)
	}
	_, ref := ann.get("$ref")
	if ref {
		for _, k := range ann.keys {
			switch k {
			case "$ref", "description", "title", "default", "examples", "$comment":
			default:
				return fmt.Errorf("%s: %s beside $ref, which draft-07 ignores: write allOf: [{$ref: ...}] and %s beside it",
					where, k, k)
			}
		}
	} else if t, err := inferredType(val); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	} else if t != "" {
		s.set("type", t)
	}
	_, open := ann.get("additionalProperties")
	closed := val.Kind == yaml.MappingNode && len(val.Content) > 0 && !ref && !open
	var extra *object
	for _, k := range ann.keys {
		v := ann.m[k]
		if k == "properties" && closed {
			o, ok := v.(*object)
			if !ok {
				return fmt.Errorf("%s: properties: not a map", where)
			}
			extra = o
			continue
		}
		s.set(k, v)
	}
	if !closed {
		return nil
	}
	props := newObject()
	for i := 0; i < len(val.Content); i += 2 {
		key, child := val.Content[i], val.Content[i+1]
		if key.Kind != yaml.ScalarNode || key.ShortTag() != "!!str" || key.Value == "<<" {
			return fmt.Errorf("%s: key %q: only plain string keys are supported", where, key.Value)
		}
		childPath := key.Value
		if path != "" {
			childPath = path + "." + key.Value
		}
		childAnn, err := g.annotation(childPath, key.HeadComment, "@schema")
		if err != nil {
			return err
		}
		cs := newObject()
		if err := g.schema(childPath, child, childAnn, description(key.HeadComment), cs); err != nil {
			return err
		}
		props.set(key.Value, cs)
	}
	if extra != nil {
		for _, k := range extra.keys {
			if _, ok := props.get(k); ok {
				return fmt.Errorf("%s: properties: %s is a key of values.yaml: annotate it there", where, k)
			}
			props.set(k, extra.m[k])
		}
	}
	s.set("properties", props)
	s.set("additionalProperties", false)
	return nil
}

// inferredType is the JSON type of a default value, "" for null.
func inferredType(val *yaml.Node) (string, error) {
	switch val.Kind {
	case yaml.MappingNode:
		return "object", nil
	case yaml.SequenceNode:
		return "array", nil
	case yaml.ScalarNode:
		switch val.ShortTag() {
		case "!!bool":
			return "boolean", nil
		case "!!int":
			return "integer", nil
		case "!!float":
			return "number", nil
		case "!!null":
			return "", nil
		default: // !!str, and !!timestamp or !!binary, which helm reads as strings
			return "string", nil
		}
	}
	return "", fmt.Errorf("a YAML node of kind %v", val.Kind)
}

// annotation is the `# marker` annotation in a key's head comment: nil if there is none.
func (g *generator) annotation(where, comment, marker string) (*object, error) {
	var found *object
	add := func(text string) error {
		if found != nil {
			return fmt.Errorf("%s: more than one # %s annotation", where, marker)
		}
		var err error
		found, err = parseAnnotation(where, text)
		return err
	}
	var block []string
	in, described := false, false
	for _, line := range strings.Split(comment, "\n") {
		t := strings.TrimSpace(line)
		rest, isMarker := markerLine(t, marker)
		switch {
		case !isMarker:
			if in {
				block = append(block, strings.TrimPrefix(strings.TrimPrefix(t, "#"), " "))
			}
			described = described || (!in && strings.HasPrefix(t, "# --"))
			continue
		case rest != "" && in:
			return nil, fmt.Errorf("%s: a one-line # %s inside a # %s block", where, marker, marker)
		case described:
			return nil, fmt.Errorf("%s: # %s after the `# --` description, where helm-docs would show it: move it above", where, marker)
		}
		g.lines++
		var err error
		switch {
		case rest != "":
			err = add(rest)
		case !in:
			in, block = true, nil
		default:
			in = false
			err = add(strings.Join(block, "\n"))
		}
		if err != nil {
			return nil, err
		}
	}
	if in {
		return nil, fmt.Errorf("%s: a # %s block without its closing # %s line", where, marker, marker)
	}
	return found, nil
}

// markerLine tells whether the comment line t is `# marker`, and what follows the marker on it.
func markerLine(t, marker string) (string, bool) {
	after, ok := strings.CutPrefix(t, "#")
	if !ok {
		return "", false
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(after, " \t"), marker)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

func parseAnnotation(where, text string) (*object, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		return nil, fmt.Errorf("%s: @schema: %v", where, err)
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 || n.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: @schema: not a YAML map of JSON Schema keywords", where)
	}
	v, err := toJSON(n.Content[0])
	if err != nil {
		return nil, fmt.Errorf("%s: @schema: %v", where, err)
	}
	if err := checkKeywords(where+": @schema", v); err != nil {
		return nil, err
	}
	return v.(*object), nil
}

// toJSON converts a YAML node to *object, []any, string, json.Number, bool or nil, keeping the
// order of map keys.
func toJSON(n *yaml.Node) (any, error) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		o := newObject()
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, errors.New("a map key that is not a string")
			}
			if _, dup := o.get(k.Value); dup {
				return nil, fmt.Errorf("%s twice", k.Value)
			}
			v, err := toJSON(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			o.set(k.Value, v)
		}
		return o, nil
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			v, err := toJSON(c)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			err := n.Decode(&b)
			return b, err
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, err
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, err
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("%s is no JSON number", n.Value)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		default:
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("a YAML node of kind %v", n.Kind)
}

// The keywords of draft-07 (validation and annotations).
var keywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`$schema $id $ref $comment title description default readOnly writeOnly
		examples type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength
		minLength pattern items additionalItems maxItems minItems uniqueItems contains maxProperties
		minProperties required properties patternProperties additionalProperties dependencies
		propertyNames if then else allOf anyOf oneOf not format contentMediaType contentEncoding definitions`) {
		keywords[k] = true
	}
}

// checkKeywords fails on a keyword that is not draft-07's, in v and every schema within it.
func checkKeywords(where string, v any) error {
	if _, ok := v.(bool); ok {
		return nil
	}
	o, ok := v.(*object)
	if !ok {
		return fmt.Errorf("%s: a schema must be a map, true or false", where)
	}
	for _, k := range o.keys {
		if !keywords[k] {
			return fmt.Errorf("%s: %q is no keyword of JSON Schema draft-07", where, k)
		}
		at, sub := where+"/"+k, o.m[k]
		var err error
		switch k {
		case "items":
			if l, ok := sub.([]any); ok {
				err = checkEach(at, l)
			} else {
				err = checkKeywords(at, sub)
			}
		case "additionalItems", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not":
			err = checkKeywords(at, sub)
		case "allOf", "anyOf", "oneOf":
			l, ok := sub.([]any)
			if !ok {
				return fmt.Errorf("%s: not a list of schemas", at)
			}
			err = checkEach(at, l)
		case "properties", "patternProperties", "definitions", "dependencies":
			m, ok := sub.(*object)
			if !ok {
				return fmt.Errorf("%s: not a map", at)
			}
			for _, name := range m.keys {
				if _, strings := m.m[name].([]any); k == "dependencies" && strings {
					continue
				}
				if err := checkKeywords(at+"/"+name, m.m[name]); err != nil {
					return err
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func checkEach(where string, l []any) error {
	for i, s := range l {
		if err := checkKeywords(fmt.Sprintf("%s/%d", where, i), s); err != nil {
			return err
		}
	}
	return nil
}

// check compiles the schema with the validator helm uses and validates values.yaml's defaults.
func check(schemaJSON, valuesYAML []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	const url = "file:///values.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("the schema generated does not compile: %v", err)
	}
	var values any
	if err := yaml.Unmarshal(valuesYAML, &values); err != nil {
		return err
	}
	valuesJSON, err := json.Marshal(values)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(valuesJSON))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("its own defaults fail the schema generated: %v", err)
	}
	return nil
}

// helm-docs' description of a key (its ParseComment, helm-docs v1.14): from the last line that
// starts with `# --`, its text after `--` less a leading `(type)`, then the lines after it less
// those of @default, @section and @notationType, joined with spaces (with newlines after @raw).
var (
	descriptionStart = regexp.MustCompile(`^\s*#\s*(.*)\s+--\s*(.*)$`)
	typePrefix       = regexp.MustCompile(`^\((.*?)\)\s*(.*)$`)
	continuation     = regexp.MustCompile(`^\s*#(\s?)(.*)$`)
	skipped          = regexp.MustCompile(`^\s*# @(default|section) -- |^\s*#\s+@notationType\s+--\s+`)
	rawFlag          = regexp.MustCompile(`^\s*#\s+@raw`)
)

func description(comment string) string {
	lines := strings.Split(comment, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "# --") {
			start = i
		}
	}
	if start < 0 {
		return ""
	}
	m := descriptionStart.FindStringSubmatch(lines[start])
	if m == nil {
		return ""
	}
	desc := m[2]
	if t := typePrefix.FindStringSubmatch(desc); t != nil && t[1] != "" {
		desc = t[2]
	}
	raw := false
	for _, l := range lines[start+1:] {
		if !raw && rawFlag.MatchString(l) {
			raw = true
			continue
		}
		if skipped.MatchString(l) {
			continue
		}
		if c := continuation.FindStringSubmatch(l); c != nil {
			if raw {
				desc += "\n" + c[2]
			} else {
				desc += " " + c[2]
			}
		}
	}
	return strings.TrimSpace(desc)
}

// object is a JSON object that keeps the order of its keys.
type object struct {
	keys []string
	m    map[string]any
}

func newObject() *object { return &object{m: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.m[k]
	return v, ok
}

// set replaces the value of k in its place, or adds k last.
func (o *object) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

// writeJSON writes v compactly, map keys in their order, without escaping <, > and &.
func writeJSON(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := writeJSON(b, x.m[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case string:
		writeString(b, x)
	case json.Number:
		b.WriteString(string(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("cannot write %T as JSON", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	e := json.NewEncoder(b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}
