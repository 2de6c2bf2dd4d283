module syncgc.dev/e2e/toolchain/values-schema

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	gopkg.in/yaml.v3 v3.0.1
)

require golang.org/x/text v0.14.0 // indirect
