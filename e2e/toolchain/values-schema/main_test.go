package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, values string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte(values), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := generate(path)
	return string(out), err
}

func TestGenerate(t *testing.T) {
	got, err := run(t, `# A chart.
#
# @schema.root
# title: T
# properties:
#   global: {type: object}
# definitions:
#   d: {type: string, pattern: '^[0-9]+s$'}
# @schema.root

# A plain comment is no description.
image:
  # @schema {minLength: 1}
  # -- The <image>, and
  # its tag.
  repository: x
  pullPolicy: Always
# @schema
# type: [integer, string]
# oneOf: [{type: integer}, {type: string}]
# @schema
# -- (int) A number or a string.
# @default -- one
count: 1
ratio: 0.5
# @schema {$ref: '#/definitions/d', description: Overrides.}
# -- Dropped.
timeout: 5s
# @schema {additionalProperties: true}
resources:
  requests: {cpu: 1}
labels: {}
none: null
# @schema {items: {type: string}}
list: [a]
`)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "T",
  "type": "object",
  "definitions": {
    "d": {
      "type": "string",
      "pattern": "^[0-9]+s$"
    }
  },
  "properties": {
    "image": {
      "type": "object",
      "properties": {
        "repository": {
          "description": "The <image>, and its tag.",
          "type": "string",
          "minLength": 1
        },
        "pullPolicy": {
          "type": "string"
        }
      },
      "additionalProperties": false
    },
    "count": {
      "description": "A number or a string.",
      "type": [
        "integer",
        "string"
      ],
      "oneOf": [
        {
          "type": "integer"
        },
        {
          "type": "string"
        }
      ]
    },
    "ratio": {
      "type": "number"
    },
    "timeout": {
      "description": "Overrides.",
      "$ref": "#/definitions/d"
    },
    "resources": {
      "type": "object",
      "additionalProperties": true
    },
    "labels": {
      "type": "object"
    },
    "none": {},
    "list": {
      "type": "array",
      "items": {
        "type": "string"
      }
    },
    "global": {
      "type": "object"
    }
  },
  "additionalProperties": false
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRefuses(t *testing.T) {
	for _, c := range []struct{ name, values, err string }{
		{"a misspelt keyword", "# @schema {minimun: 1}\na: 1\n", `"minimun" is no keyword`},
		{"a misspelt keyword within", "# @schema {items: {patern: x}}\na: []\n", `a: @schema/items: "patern" is no keyword`},
		{"a keyword beside $ref", "# @schema {$ref: '#/definitions/d', minLength: 1}\na: x\n", "minLength beside $ref"},
		{"a $ref to nothing", "# @schema {$ref: '#/definitions/d'}\na: x\n", "does not compile"},
		{"a default the schema refuses", "# @schema {minimum: 2}\na: 1\n", "its own defaults fail"},
		{"an annotation after the description", "# -- A.\n# @schema {minimum: 1}\na: 1\n", "after the `# --` description"},
		{"two annotations", "# @schema {minimum: 1}\n# @schema {maximum: 2}\na: 1\n", "more than one"},
		{"an unclosed block", "# @schema\n# minimum: 1\na: 1\n", "without its closing"},
		{"an annotation that is no map", "# @schema [1]\na: 1\n", "not a YAML map"},
		{"an annotation under a map taken as a whole", "# @schema {additionalProperties: true}\na:\n  # @schema {minimum: 1}\n  b: 1\n", "1 of its 2 @schema lines"},
		{"an annotation in the header", "# @schema {minimum: 1}\n\na: 1\n", "1 of its 1 @schema lines"},
		{"properties for a key values.yaml has", "# @schema {properties: {b: {type: string}}}\na:\n  b: x\n", "b is a key of values.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(t, c.values)
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want one with %q", err, c.err)
			}
		})
	}
}
