package install

// Tests on the sandbox's real API server (make sandbox-up; KUEUEBOT_SANDBOX
// points at its state folder; they skip without it). They create
// namespaces named kb-install-*, the namespace kueuebot and the
// ServiceMonitor CRD, and delete them when they end.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// cluster is a client of the sandbox as its admin.
type cluster struct {
	cfg    *rest.Config
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	warn   *warnings
}

// warnings collects the API server's warnings (a Pod Security violation,
// a deprecated API) so a test can fail on them.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

func openCluster(t *testing.T) *cluster {
	t.Helper()
	dir := os.Getenv("KUEUEBOT_SANDBOX")
	if dir == "" {
		t.Skip("KUEUEBOT_SANDBOX is not set: no real API server (make sandbox-up, then KUEUEBOT_SANDBOX=$PWD/.sandbox)")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(RepoRoot(), dir)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatalf("sandbox: %v", err)
	}
	cfg.Timeout = 30 * time.Second
	c := &cluster{cfg: cfg, warn: &warnings{}}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = c.warn
	c.kube = kubernetes.NewForConfigOrDie(cfg)
	c.dyn = dynamic.NewForConfigOrDie(cfg)
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	return c
}

// resource returns the client for o's kind in o's namespace.
func (c *cluster) resource(t *testing.T, o *unstructured.Unstructured) dynamic.ResourceInterface {
	t.Helper()
	gvk := o.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		c.mapper.Reset()
		if m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			t.Fatalf("%s %s: the API server does not serve it: %v", gvk, o.GetName(), err)
		}
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return c.dyn.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	return c.dyn.Resource(m.Resource)
}

// apply server-side applies o, for real or as a dry run, with strict field
// validation: an unknown or misplaced field is an error, not a warning.
func (c *cluster) apply(t *testing.T, o *unstructured.Unstructured, dryRun bool) error {
	t.Helper()
	body, err := json.Marshal(o.Object)
	if err != nil {
		t.Fatal(err)
	}
	opts := metav1.PatchOptions{FieldManager: "kueuebot-install-test", Force: ptr(true), FieldValidation: "Strict"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err = c.resource(t, o).Patch(t.Context(), o.GetName(), types.ApplyPatchType, body, opts)
	return err
}

// mustApply applies o for real and deletes it when the test ends.
func (c *cluster) mustApply(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	if err := c.apply(t, o, false); err != nil {
		t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
	}
	ri := c.resource(t, o)
	t.Cleanup(func() {
		if err := ri.Delete(context.Background(), o.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	})
}

// namespace creates a namespace held to the restricted Pod Security
// Standard (enforced and warned), deleted when the test ends.
func (c *cluster) namespace(t *testing.T, name string) {
	t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": name, "labels": map[string]any{
			"pod-security.kubernetes.io/enforce": "restricted",
			"pod-security.kubernetes.io/warn":    "restricted",
		}},
	}}
	c.mustApply(t, ns)
}

// ensureNamespace creates a plain namespace unless it exists, and deletes
// it at the end only if it created it.
func (c *cluster) ensureNamespace(t *testing.T, name string) {
	t.Helper()
	_, err := c.kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
	case err != nil:
		t.Fatal(err)
	default:
		t.Cleanup(func() { _ = c.kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
}

// prometheusOperator is the release whose ServiceMonitor CRD the
// ServiceMonitor is validated against.
const prometheusOperator = "github.com/prometheus-operator/prometheus-operator@v0.85.0"

// serviceMonitorCRD installs the Prometheus Operator's ServiceMonitor CRD,
// read from that module (the Go module cache), and waits until it is
// served.
func (c *cluster) serviceMonitorCRD(t *testing.T) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", prometheusOperator).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", prometheusOperator, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(mod.Dir, "example", "prometheus-operator-crd", "monitoring.coreos.com_servicemonitors.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := DecodeYAML(b)
	if err != nil || len(objs) != 1 {
		t.Fatalf("ServiceMonitor CRD: %v (%d objects)", err, len(objs))
	}
	c.mustApply(t, objs[0])
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mapper.Reset()
		if _, err := c.mapper.RESTMapping(schema.GroupKind{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}, "v1"); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the ServiceMonitor CRD is not served after 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }
