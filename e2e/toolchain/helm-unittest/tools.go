//go:build tools

// Package tools pins the helm-unittest plugin that e2e/chart-test.sh builds. A module of its own, as
// for ct: the plugin's go.mod has a replace directive, which `go install module@version` refuses.
package tools

import _ "github.com/helm-unittest/helm-unittest/cmd/helm-unittest"
