//go:build tools

// Package tools pins the chart-testing (ct) that e2e/ct.sh builds. A module of its own, as for etcd:
// `go install ct@version` reads the module's version list, which the Go module proxy here refuses.
package tools

import _ "github.com/helm/chart-testing/v3/ct"
