package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A MultiKueue worker: a second control plane (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, fake Nodes) with its own Kueue, in <state>/worker, on free loopback ports. It
// enables batch Jobs and Pods only (the job kinds' CRDs are installed, as the manager's MultiKueue
// watches them there, but no JobSet controller and no visibility API). The manager (the main sandbox) reaches it with the real Kueue's
// MultiKueue controllers through the Secret workerSecret in its kueue-system namespace: a
// kubeconfig for the worker's user multikueue, whose rights are workerRBAC. Scenarios create
// their own MultiKueueCluster objects on that Secret.
const (
	roleWorker = "worker"
	// workerDir is the worker's state directory, inside the manager's.
	workerDir = "worker"
	// multiKueueUser is the worker's static-token user the manager's Kueue connects as.
	multiKueueUser = "multikueue"
	// workerSecret holds the worker's kubeconfig in the manager's kueue-system namespace.
	workerSecret = "sandbox-worker-kubeconfig"
	// workerCheckCluster is the MultiKueueCluster sandbox-up creates to prove the link.
	workerCheckCluster = "sandbox-worker-link"
)

// workerRBAC is what MultiKueue needs on a worker: create and delete the job and its Workload,
// watch them, and write the Workload's status (the manager patches eviction and preemption gates
// there). MultiKueue watches every kind the manager integrates on each worker, so the rule covers
// the job kinds' groups, as Kueue's docs do for their multikueue ServiceAccount.
const workerRBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kueuebot-sandbox-multikueue
  labels: {app.kubernetes.io/part-of: kueuebot-sandbox}
rules:
- apiGroups: [batch, jobset.x-k8s.io, ray.io, kubeflow.org, trainer.kubeflow.org, leaderworkerset.x-k8s.io, workload.codeflare.dev, apps]
  resources: ["*"]
  verbs: [create, delete, get, list, watch, update, patch]
- apiGroups: [""]
  resources: [pods]
  verbs: [create, delete, get, list, watch, update, patch]
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads]
  verbs: [create, delete, get, list, watch, update, patch]
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads/status]
  verbs: [get, patch, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kueuebot-sandbox-multikueue
  labels: {app.kubernetes.io/part-of: kueuebot-sandbox}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kueuebot-sandbox-multikueue}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: multikueue}
`

// workerState is the worker's state directory of a manager sandbox.
func workerState(state string) string { return filepath.Join(state, workerDir) }

// upWorkerRest is the worker's part of up after its CRDs and RBAC are in: webhooks, Kueue, the
// controller-manager, the scheduler, the Nodes, then the smoke Job (no JobSet, no visibility).
func upWorkerRest(ctx context.Context, opts options, st *stepTimer, admin *cluster, ks kueueSettings, hooks []*unstructured.Unstructured,
	server, webhookURL, etcdURL, cfgDir, pki, kueueKubeconfig string,
) error {
	s := opts.state
	if err := admin.applyAll(ctx, hooks); err != nil {
		return err
	}
	ks.Bin = "unshare"
	ks.Args = []string{"--mount", "--propagation=private", "sh", "-c",
		`mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc && shift 2 && exec "$@"`, "sh",
		filepath.Join(s, "kueue-etc", "upper"), filepath.Join(s, "kueue-etc", "work"),
		filepath.Join(opts.kueueBin, "kueue"), "--config=" + ks.ConfigPath, "--kubeconfig=" + kueueKubeconfig,
	}
	ks.Env = []string{"KUBECONFIG=" + kueueKubeconfig}
	if err := startKueue(ctx, s, ks, defaultVariant, false); err != nil {
		return err
	}
	if _, err := start(s, "kube-controller-manager", filepath.Join(opts.kubeBin, "kube-controller-manager"), []string{
		"--kubeconfig=" + filepath.Join(cfgDir, "kube-controller-manager.kubeconfig"),
		"--controllers=*,-nodelifecycle,-nodeipam",
		"--service-account-private-key-file=" + filepath.Join(pki, "sa.key"),
		"--root-ca-file=" + filepath.Join(pki, "ca.crt"),
		"--use-service-account-credentials=false",
		"--leader-elect=false", "--secure-port=0", "--cluster-name=kueuebot-sandbox-worker",
	}, nil); err != nil {
		return err
	}
	if _, err := start(s, "kube-scheduler", filepath.Join(opts.kubeBin, "kube-scheduler"), []string{
		"--kubeconfig=" + filepath.Join(cfgDir, "kube-scheduler.kubeconfig"),
		"--leader-elect=false", "--secure-port=0",
	}, nil); err != nil {
		return err
	}
	st.step("worker: webhooks applied; kueue, controller-manager, scheduler started")
	if err := applyNodes(ctx, admin); err != nil {
		return err
	}
	if err := waitKueue(ctx, s, ks); err != nil {
		return err
	}
	st.step("worker: nodes Ready, kueue readyz ok")
	if err := smoke(ctx, admin, s); err != nil {
		return fmt.Errorf("smoke test: %w", err)
	}
	st.step("worker: smoke Job admitted by Kueue and its Pod scheduled")
	env := fmt.Sprintf("KUEUEBOT_SANDBOX=%s\nKUBECONFIG=%s\nSANDBOX_APISERVER=%s\nSANDBOX_KUEUE_WEBHOOK=%s\nSANDBOX_ETCD=%s\nSANDBOX_VISIBILITY=false\nSANDBOX_KUEUE_CONFIG=%s\n",
		s, filepath.Join(s, "kubeconfig"), server, webhookURL, etcdURL, defaultVariant)
	return writeFile(filepath.Join(s, "env"), []byte(env), 0o644)
}

// startWorker starts the worker sandbox of a running manager and links them: the worker's
// kubeconfig for multikueue goes into the manager's Secret workerSecret, and a MultiKueueCluster
// on it must turn Active=True (it is deleted again: scenarios create their own).
func startWorker(ctx context.Context, opts options, manager *cluster) error {
	w := opts
	w.state, w.role, w.worker, w.visibility = workerState(opts.state), roleWorker, false, false
	t0 := time.Now()
	if err := up(w); err != nil {
		return err
	}
	if err := linkWorker(ctx, manager, opts.state); err != nil {
		return err
	}
	if err := setEnv(opts.state, "SANDBOX_WORKER", w.state); err != nil {
		return err
	}
	fmt.Printf("worker started and linked in %.1fs\n", time.Since(t0).Seconds())
	return nil
}

// linkWorker writes workerSecret in the manager and waits for a MultiKueueCluster on it to be
// Active, which proves the manager's Kueue reaches the worker as multikueue.
func linkWorker(ctx context.Context, manager *cluster, state string) error {
	kc, err := os.ReadFile(filepath.Join(workerState(state), "kubeconfig-"+multiKueueUser))
	if err != nil {
		return err
	}
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata":   map[string]any{"name": workerSecret, "namespace": kueueNamespace},
		"stringData": map[string]any{"kubeconfig": string(kc)},
	}}
	mkc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueCluster",
		"metadata": map[string]any{"name": workerCheckCluster},
		"spec": map[string]any{"clusterSource": map[string]any{
			"kubeConfig": map[string]any{"location": workerSecret, "locationType": "Secret"},
		}},
	}}
	if err := manager.applyAll(ctx, []*unstructured.Unstructured{secret, mkc}); err != nil {
		return err
	}
	res := gvr("kueue.x-k8s.io", "v1beta2", "multikueueclusters")
	var last string
	for {
		o, err := manager.dyn.Resource(res).Get(ctx, workerCheckCluster, metav1.GetOptions{})
		if err == nil && hasCondition(o, "Active", "True") {
			break
		}
		if err == nil {
			conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
			last = fmt.Sprint(conds)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("MultiKueueCluster %s never became Active: %s", workerCheckCluster, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err := manager.dyn.Resource(res).Delete(ctx, workerCheckCluster, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// workerRunning reports whether the manager at state has a running worker.
func workerRunning(state string) bool { return len(running(workerState(state))) > 0 }

// ensureWorker starts the worker of a running manager sandbox unless it runs already (the
// MultiKueue scenarios need it; a default sandbox-up does not start it).
func ensureWorker(opts options) error {
	if workerRunning(opts.state) {
		return nil
	}
	if opts.kubeBin == "" || opts.kueueBin == "" {
		return fmt.Errorf("the MultiKueue scenarios need the worker: start the sandbox with SANDBOX_WORKER=1, or pass -kube-bin and -kueue-bin")
	}
	manager, err := newCluster(filepath.Join(opts.state, "kubeconfig"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout)
	defer cancel()
	fmt.Println("starting the MultiKueue worker (the MultiKueue scenarios need it)")
	return startWorker(ctx, opts, manager)
}

// validWorkerSteps: steps on the worker apply, wait, patch, delete or write Pod status; a
// remedy is the manager's (it runs kueuebot against the manager).
func validWorkerSteps(name string, sf scenarioFile) error {
	for i, s := range sf.Steps {
		if s.Cluster == roleWorker && s.Remedy != nil {
			return fmt.Errorf("scenario %s: step %d: a remedy runs on the manager, not on the worker", name, i+1)
		}
	}
	return nil
}
