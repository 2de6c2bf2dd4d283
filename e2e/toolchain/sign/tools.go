//go:build tools

// Package tools pins what e2e/sign.sh builds from this module: cosign and syft (their commands,
// github.com/sigstore/cosign/v3/cmd/cosign and github.com/anchore/syft/cmd/syft), and the registry
// on loopback (./registry, go-containerregistry's). One module, so one build list: the many modules
// that cosign and syft share (the cloud SDKs, gRPC, OpenTelemetry, go-containerregistry, golang.org/x)
// are at one version and compile once, where `go install` of each at its own versions compiles them
// twice. go.mod raises some of cosign's and syft's dependencies to the newer version the other needs.
package tools

import (
	_ "github.com/anchore/syft/cmd/syft"
	_ "github.com/sigstore/cosign/v3/cmd/cosign"
)
