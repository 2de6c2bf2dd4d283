// Command registry: an OCI registry on loopback for e2e/sign.sh, which pushes the operator image to
// it to sign it and attach its SBOM by digest, then verifies both there, and stops it. It is
// go-containerregistry's registry (pkg/registry) with the OCI 1.1 referrers API on, blobs on disk,
// listening on 127.0.0.1 only; it prints "serving on 127.0.0.1:PORT" once it listens.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	port := flag.Int("port", 0, "port on 127.0.0.1 (0: any free one)")
	dir := flag.String("dir", "", "directory for the blobs (required)")
	flag.Parse()
	if *dir == "" {
		log.Fatal("-dir is required")
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		log.Fatal(err)
	}
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("serving on %s\n", listener.Addr())
	server := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: registry.New(
			registry.WithReferrersSupport(true),
			registry.WithBlobHandler(registry.NewDiskBlobHandler(*dir)),
			registry.Logger(log.New(os.Stderr, "", log.LstdFlags)),
		),
	}
	log.Fatal(server.Serve(listener))
}
