// Command sandbox runs the kueuebot sandbox: a loopback-only etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and the real Kueue manager, plus fake nodes.
//
//	sandbox up        start everything, exit 0 once Kueue admits a smoke Job
//	sandbox down      stop every process recorded in <state>/pids (idempotent)
//	sandbox status    show which components run
//	sandbox scenarios apply deploy/sandbox/scenarios/* and write the YAML dumps
//	sandbox apply     apply the manifests of -f FILE (as admin)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	var o options
	var scen scenarioOptions
	fs.StringVar(&o.state, "state", ".sandbox", "state directory")
	fs.StringVar(&o.kubeBin, "kube-bin", "", "directory with etcd, kube-apiserver, kube-controller-manager, kube-scheduler")
	fs.StringVar(&o.kueueBin, "kueue-bin", "", "directory with the kueue binary")
	fs.StringVar(&o.jobsetBin, "jobset-bin", "", "directory with the jobset binary (the JobSet controller)")
	fs.StringVar(&o.kueueDir, "kueue-dir", "", "sigs.k8s.io/kueue module directory (config/); default: resolved in -build-dir")
	fs.StringVar(&o.buildDir, "build-dir", "deploy/sandbox/build/kueue", "module whose go.mod pins Kueue and the job kinds' modules (their CRDs are read from the module cache)")
	fs.StringVar(&o.goBin, "go", "go", "the go command (resolves module directories)")
	fs.DurationVar(&o.timeout, "timeout", 3*time.Minute, "how long sandbox-up may take")
	fs.BoolVar(&o.visibility, "visibility", false, "serve Kueue's visibility API through the aggregator (creates an empty /visibility mount point on the host)")
	fs.BoolVar(&o.worker, "worker", false, "also start a MultiKueue worker (a second control plane with its own Kueue) in <state>/worker, linked to this one")
	fs.StringVar(&scen.dir, "scenarios", "deploy/sandbox/scenarios", "scenario directory")
	fs.StringVar(&scen.out, "out", "deploy/examples/scenarios", "where scenario dumps go")
	fs.StringVar(&scen.only, "only", "", "comma-separated scenario names (default: all)")
	fs.DurationVar(&scen.settle, "settle", 60*time.Second, "per-scenario bound on waiting for Kueue to settle")
	fs.IntVar(&scen.parallel, "parallel", 4, "how many scenarios of one Kueue configuration run at once")
	fs.StringVar(&scen.kueuebot, "kueuebot", "", "kueuebot binary: remedy steps, and a live check of each scenario's verdict")
	fs.StringVar(&scen.kubectl, "kubectl", "", "kubectl binary remedy steps run (default: kubectl in -kube-bin)")
	var applyFile string
	fs.StringVar(&applyFile, "f", "", "manifest file for apply")
	if len(args) == 0 {
		return fmt.Errorf("usage: sandbox up|down|status|scenarios|apply [flags]")
	}
	cmd := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	abs, err := filepath.Abs(o.state)
	if err != nil {
		return err
	}
	o.state = abs
	switch cmd {
	case "up":
		if o.kubeBin == "" || o.kueueBin == "" || o.jobsetBin == "" {
			return fmt.Errorf("up needs -kube-bin, -kueue-bin and -jobset-bin")
		}
		return up(o)
	case "down":
		if err := stopAll(o.state); err != nil {
			return err
		}
		fmt.Println("sandbox is down")
		return nil
	case "status":
		r := running(o.state)
		if len(r) == 0 {
			fmt.Println("sandbox is not running")
			return nil
		}
		fmt.Println("running:", strings.Join(r, ", "))
		if w := running(workerState(o.state)); len(w) > 0 {
			fmt.Println("worker running:", strings.Join(w, ", "))
		}
		return nil
	case "scenarios":
		scen.state = o.state
		scen.up = o
		if scen.kubectl == "" && o.kubeBin != "" && fileExists(filepath.Join(o.kubeBin, "kubectl")) {
			scen.kubectl = filepath.Join(o.kubeBin, "kubectl")
		}
		return runScenarios(scen)
	case "apply":
		if applyFile == "" {
			return fmt.Errorf("apply needs -f FILE")
		}
		objs, err := decodeFile(applyFile)
		if err != nil {
			return err
		}
		c, err := newCluster(filepath.Join(o.state, "kubeconfig"))
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.applyAll(ctx, objs); err != nil {
			return err
		}
		fmt.Printf("applied %d object(s) from %s\n", len(objs), applyFile)
		return nil
	}
	return fmt.Errorf("unknown command %q", cmd)
}
