// Package peer runs Kubernetes' own end-to-end tests of test/e2e/apimachinery (the "Garbage
// collector" specs, chosen with --ginkgo.focus by e2e/peer/run.sh) against a cluster on which syncgc
// runs, from the k8s.io/kubernetes module the local control plane is built from. It is the test main
// of test/e2e/e2e_test.go cut down to the apimachinery tests.
package peer

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"k8s.io/kubernetes/test/e2e"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"

	// define and freeze constants
	_ "k8s.io/kubernetes/test/e2e/feature"

	// the test sources: the garbage collector's specs and the rest of API machinery
	_ "k8s.io/kubernetes/test/e2e/apimachinery"

	// reconfigure the framework, as test/e2e/e2e_test.go does
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/metrics/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/utils/format"
)

func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	if flag.CommandLine.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "unknown additional command line arguments: %s\n", flag.CommandLine.Args())
		os.Exit(1)
	}
	framework.AfterReadingAllFlags(&framework.TestContext)
	if framework.TestContext.RepoRoot != "" {
		testfiles.AddFileSource(testfiles.RootFileSource{Root: framework.TestContext.RepoRoot})
	}
	os.Exit(m.Run())
}

func TestE2E(t *testing.T) {
	e2e.RunE2ETests(t)
}
