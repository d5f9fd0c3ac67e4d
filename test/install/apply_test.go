package install

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestApplyChart: for each value set, every object the chart renders is
// valid for the real API server (server-side apply, dry run, strict field
// validation, no warnings), and the bot's pod passes the restricted Pod
// Security Standard, enforced on its namespace.
func TestApplyChart(t *testing.T) {
	c := openCluster(t)
	for _, vs := range valueSets(t) {
		t.Run(vs.name, func(t *testing.T) {
			ns := "kb-install-" + vs.name
			c.namespace(t, ns)
			objs := render(t, vs.values, "kueuebot", ns).Objects
			c.dryRunAll(t, objs)
		})
	}
}

// TestApplyKustomize: the same for kubectl apply -k deploy/manifests; its
// Namespace is created for real (the other objects live in it).
func TestApplyKustomize(t *testing.T) {
	c := openCluster(t)
	objs, err := RenderKustomize(ManifestsDir())
	if err != nil {
		t.Fatal(err)
	}
	var rest []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "Namespace" {
			if o.GetLabels()["pod-security.kubernetes.io/enforce"] != "restricted" {
				t.Errorf("the base's namespace does not enforce the restricted Pod Security Standard: %v", o.GetLabels())
			}
			c.mustApply(t, o)
			continue
		}
		rest = append(rest, o)
	}
	c.dryRunAll(t, rest)
}

// dryRunAll validates objs with a server-side dry run, then the bot's pod
// with a dry-run create. The ServiceAccount is created for real (the pod's
// admission needs it), and so are the namespaces reader bindings go to and
// the ServiceMonitor CRD when they are needed.
func (c *cluster) dryRunAll(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	var dep *appsv1.Deployment
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceMonitor":
			c.serviceMonitorCRD(t)
		case "RoleBinding":
			c.ensureNamespace(t, o.GetNamespace())
		case "ServiceAccount":
			c.mustApply(t, o)
		case "Deployment":
			dep = typed[appsv1.Deployment](t, o)
		}
	}
	c.warn.take()
	for _, o := range objs {
		if err := c.apply(t, o, true); err != nil {
			t.Errorf("%s %s is not valid: %v", o.GetKind(), o.GetName(), err)
		}
		for _, w := range c.warn.take() {
			t.Errorf("%s %s: the API server warns: %s", o.GetKind(), o.GetName(), w)
		}
	}
	if dep == nil {
		t.Fatal("no Deployment")
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: dep.Name + "-dry-run", Namespace: dep.Namespace, Labels: dep.Spec.Template.Labels, Annotations: dep.Spec.Template.Annotations},
		Spec:       dep.Spec.Template.Spec,
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	if err := c.apply(t, u, true); err != nil {
		t.Errorf("the bot's pod is refused in namespace %s (restricted Pod Security): %v", dep.Namespace, err)
	}
	for _, w := range c.warn.take() {
		t.Errorf("the bot's pod: the API server warns: %s", w)
	}
}
