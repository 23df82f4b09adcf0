// Command etcd is etcd's server (go.etcd.io/etcd/server/v3, the release
// pinned in go.mod) as a module of its own, so that the e2e test can build
// it from the Go module proxy: etcd's own main module carries replace
// directives and cannot be built with "go install module@version", and
// its dependency versions must not enter internal/kube's go.mod.
//
//	go build -o etcd .
//	./etcd --data-dir /tmp/etcd --listen-client-urls http://127.0.0.1:2379 \
//	  --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:0
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
