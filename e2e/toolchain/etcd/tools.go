//go:build tools

// Package tools pins the etcd server that e2e/cluster.sh builds.
package tools

import _ "go.etcd.io/etcd/server/v3"
