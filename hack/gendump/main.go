// Command gendump writes a generated Kueue cluster as a dump that
// `kueuebot diagnose --from-file` and `kueuebot digest --from-file` read, for
// load tests (dumps are generated, never committed):
//
//	go run ./hack/gendump -workloads 10000 -format yaml-list > /tmp/dump.yaml
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/kueuebot/kueuebot/internal/gencluster"
)

func main() {
	var spec gencluster.Spec
	flag.IntVar(&spec.Workloads, "workloads", 10000, "number of Workloads")
	flag.IntVar(&spec.Namespaces, "namespaces", 1000, "number of namespaces (one LocalQueue each)")
	flag.IntVar(&spec.ClusterQueues, "cluster-queues", 200, "number of ClusterQueues")
	flag.IntVar(&spec.CohortSize, "cohort-size", 4, "ClusterQueues per cohort (0: no cohorts)")
	flag.BoolVar(&spec.Jobs, "jobs", false, "also write the batch Job of each Workload")
	format := flag.String("format", "yaml-list", "yaml-list (kubectl get -o yaml), yaml-docs or json-list (kubectl get -o json)")
	flag.Parse()

	c := gencluster.Generate(spec)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var err error
	switch *format {
	case "yaml-list":
		err = c.WriteYAMLList(w)
	case "yaml-docs":
		err = c.WriteYAMLDocuments(w)
	case "json-list":
		err = c.WriteJSONList(w)
	default:
		err = fmt.Errorf("unknown -format %q (want yaml-list, yaml-docs or json-list)", *format)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendump:", err)
		os.Exit(1)
	}
}
