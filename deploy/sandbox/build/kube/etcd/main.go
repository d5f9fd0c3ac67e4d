// Command etcd is a minimal etcd v3.6 server entry point for the kueuebot sandbox.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
