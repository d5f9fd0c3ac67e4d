package kinds

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// TestEveryKindIsComplete: each entry says all a reader of the registry
// needs, so that adding a kind is one entry.
func TestEveryKindIsComplete(t *testing.T) {
	words := map[string]string{}
	gks := map[string]bool{}
	for i, k := range All() {
		t.Run(k.Kind, func(t *testing.T) {
			if k.Kind == "" || k.Resource.Version == "" || k.Resource.Resource == "" {
				t.Errorf("kind, version or resource missing: %+v", k)
			}
			if k.Resource.Resource != strings.ToLower(k.Resource.Resource) || !strings.HasSuffix(k.Resource.Resource, "s") {
				t.Errorf("resource %q is not a lower-case plural", k.Resource.Resource)
			}
			if len(k.Names) < 2 || k.Names[0] != strings.ToLower(k.Kind) || k.Names[1] != k.Resource.Resource {
				t.Errorf("Names %v: want the lower-case kind, then the resource (plural), then short names", k.Names)
			}
			for _, n := range k.Names {
				if n != strings.ToLower(n) || strings.ContainsAny(n, "./ ") {
					t.Errorf("name %q: want lower case, no dot, slash or space", n)
				}
				if other, ok := words[n]; ok {
					t.Errorf("name %q is also %s's", n, other)
				}
				words[n] = k.Kind
			}
			gk := k.GroupKind().String()
			if gks[gk] {
				t.Errorf("%s twice", gk)
			}
			gks[gk] = true
			// Kueue manages every kind but its own Workload through an
			// integration; every kind whose Pods another controller
			// creates names it.
			switch k.Kind {
			case Workload:
				if k.Framework != "" || !k.Operator.IsZero() || k.PodSelector != nil || k.SuspendPath != nil {
					t.Errorf("the Workload has no framework, operator, Pods or suspension: %+v", k)
				}
				if i != len(all)-1 {
					t.Error("Workload is not last")
				}
				return
			case Job:
				if i != 0 {
					t.Error("Job (the default) is not first")
				}
			case Pod:
				if !k.SuspendedByGate {
					t.Error("a Pod is held by Kueue's scheduling gate")
				}
			default:
				if k.Operator.Name == "" || k.Operator.Noun != Controller && k.Operator.Noun != OperatorNoun {
					t.Errorf("Operator %+v: want who runs it, e.g. the KubeRay operator", k.Operator)
				}
			}
			// Kueue names an integration group/kind, except the core
			// ones (pod) and the built-in apps kinds (statefulset,
			// deployment: pkg/controller/jobs/*/..._controller.go
			// FrameworkName).
			want := k.Resource.Group + "/" + strings.ToLower(k.Kind)
			if k.Resource.Group == "" || k.Resource.Group == "apps" {
				want = strings.ToLower(k.Kind)
			}
			if k.Framework != want {
				t.Errorf("Framework %q, want Kueue's integration name %q", k.Framework, want)
			}
			if k.PodSelector == nil {
				t.Error("no PodSelector")
			}
			// How Kueue holds the kind back: a suspend field, the
			// admission gate on the Pod itself, or the gate on the Pods
			// its webhook marks (StatefulSet, Deployment); LeaderWorkerSet
			// alone has neither (Kueue gates its Pods through its own
			// integration, which kueuebot reads by Workload).
			held := 0
			for _, b := range []bool{k.SuspendPath != nil, k.SuspendedByGate, k.PodsGated} {
				if b {
					held++
				}
			}
			switch {
			case held > 1:
				t.Errorf("held back in %d ways: SuspendPath %v, SuspendedByGate %v, PodsGated %v", held, k.SuspendPath, k.SuspendedByGate, k.PodsGated)
			case held == 0 && k.Kind != "LeaderWorkerSet":
				t.Error("no SuspendPath, SuspendedByGate or PodsGated (only LeaderWorkerSet has none)")
			case k.PodsGated && k.Resource.Group != "apps":
				t.Errorf("PodsGated on %s: only Kueue's statefulset and deployment integrations gate the Pods of their kind", k.Kind)
			}
			if k.WorkloadPerPod && k.Kind != Deployment {
				t.Errorf("WorkloadPerPod on %s: only a Deployment's Pods are Workloads of their own", k.Kind)
			}
			r := k.ReadRule()
			if !slices.Equal(r.APIGroups, []string{k.Resource.Group}) || !slices.Equal(r.Resources, []string{k.Resource.Resource}) || !slices.Equal(r.Verbs, []string{"get", "list"}) {
				t.Errorf("ReadRule %+v", r)
			}
		})
	}
}

// scenarioExceptions are registry kinds with no sandbox scenario, each with
// the reason. Keep it empty: a kind kueuebot reads is run against the real
// Kueue (deploy/sandbox/scenarios).
var scenarioExceptions = map[string]string{}

// TestEveryKindHasAScenario: every kind is the target of a sandbox
// scenario (deploy/sandbox/scenarios/NAME/expect.yaml, target.kind), or an
// explicit exception; and every scenario's kind is in the registry.
func TestEveryKindHasAScenario(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "deploy", "sandbox", "scenarios", "*", "expect.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	byKind := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Target struct {
				Kind string `json:"kind"`
			} `json:"target"`
		}
		if err := yaml.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		byKind[e.Target.Kind] = append(byKind[e.Target.Kind], filepath.Base(filepath.Dir(f)))
	}
	for _, k := range All() {
		_, excepted := scenarioExceptions[k.Kind]
		switch n := len(byKind[k.Kind]); {
		case n == 0 && !excepted:
			t.Errorf("kind %s has no scenario: add deploy/sandbox/scenarios/NAME with target.kind %s in expect.yaml, or an exception with its reason", k.Kind, k.Kind)
		case n > 0 && excepted:
			t.Errorf("kind %s is an exception but has scenarios %v: drop the exception", k.Kind, byKind[k.Kind])
		}
	}
	for kind, names := range byKind {
		if _, ok := ByKind(kind); !ok {
			t.Errorf("scenarios %v target kind %q, which is not in the registry", names, kind)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, k := range All() {
		for _, w := range append([]string{k.Kind, strings.ToUpper(k.Kind), " " + k.Kind + " ", k.Names[0] + "." + k.Resource.Group}, k.Names...) {
			got, ok := Lookup(w)
			if !ok || got.Kind != k.Kind {
				t.Errorf("Lookup(%q) = %v, %v; want %s", w, got, ok, k.Kind)
			}
		}
		if got, ok := ByGroupKind(k.GroupKind()); !ok || got.Kind != k.Kind {
			t.Errorf("ByGroupKind(%s) = %v, %v", k.GroupKind(), got, ok)
		}
	}
	if k, ok := Lookup(""); !ok || k.Kind != Job {
		t.Errorf("Lookup(\"\") = %v, %v; want Job", k, ok)
	}
	for _, w := range []string{"replicaset", "daemonset", "cronjob", "jobs.ray.io", "workloads.batch", "deployments.batch", "x"} {
		if k, ok := Lookup(w); ok {
			t.Errorf("Lookup(%q) = %s, want none", w, k.Kind)
		}
	}
}

func TestSentence(t *testing.T) {
	s := Sentence()
	if !strings.HasPrefix(s, "Job (default), JobSet, ") || !strings.HasSuffix(s, ", Pod, or Workload") {
		t.Errorf("Sentence() = %q", s)
	}
	if w := Words(); !strings.HasPrefix(w, "job, jobset, ") || !strings.HasSuffix(w, ", pod, workload") {
		t.Errorf("Words() = %q", w)
	}
}

func TestAllIsACopy(t *testing.T) {
	a := All()
	a[0].Kind = "changed"
	a[0].Names[0] = "changed"
	if k, _ := Lookup("job"); k == nil || k.Kind != Job {
		t.Error("changing All()'s result changed the registry")
	}
}

func TestSuspended(t *testing.T) {
	obj := func(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }
	tests := []struct {
		name      string
		kind      string
		obj       *unstructured.Unstructured
		want      bool
		wantKnown bool
	}{
		{name: "job suspended", kind: "job", obj: obj(map[string]any{"spec": map[string]any{"suspend": true}}), want: true, wantKnown: true},
		{name: "job running", kind: "job", obj: obj(map[string]any{"spec": map[string]any{}}), wantKnown: true},
		{name: "pytorchjob runPolicy", kind: "pytorchjob", obj: obj(map[string]any{"spec": map[string]any{"runPolicy": map[string]any{"suspend": true}}}), want: true, wantKnown: true},
		{name: "mpijob runPolicy", kind: "mpijob", obj: obj(map[string]any{"spec": map[string]any{"runPolicy": map[string]any{"suspend": false}}}), wantKnown: true},
		{name: "gated pod", kind: "pod", obj: obj(map[string]any{"spec": map[string]any{"schedulingGates": []any{map[string]any{"name": PodAdmissionGate}}}}), want: true, wantKnown: true},
		{name: "ungated pod", kind: "pod", obj: obj(map[string]any{"spec": map[string]any{}}), wantKnown: true},
		{name: "lws has no suspend", kind: "lws", obj: obj(map[string]any{})},
		{name: "statefulset: its pods are gated", kind: "sts", obj: obj(map[string]any{"spec": map[string]any{"replicas": int64(2)}})},
		{name: "deployment: its pods are gated", kind: "deploy", obj: obj(map[string]any{"spec": map[string]any{"replicas": int64(2)}})},
		{name: "wrong type", kind: "job", obj: obj(map[string]any{"spec": map[string]any{"suspend": "yes"}})},
		{name: "nil", kind: "job"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := Lookup(tc.kind)
			if !ok {
				t.Fatalf("no kind %q", tc.kind)
			}
			got, known := k.Suspended(tc.obj)
			if got != tc.want || known != tc.wantKnown {
				t.Errorf("Suspended = %v, %v; want %v, %v", got, known, tc.want, tc.wantKnown)
			}
		})
	}
}

func TestAppsKinds(t *testing.T) {
	sts, _ := Lookup("sts")
	dep, _ := Lookup("deploy")
	if sts == nil || dep == nil || sts.Kind != StatefulSet || dep.Kind != Deployment {
		t.Fatalf("Lookup: %v %v", sts, dep)
	}
	if got := sts.GroupVersionKind().String(); got != "apps/v1, Kind=StatefulSet" {
		t.Errorf("GVK %s", got)
	}
	if r := dep.ReadRule(); !slices.Equal(r.APIGroups, []string{"apps"}) || !slices.Equal(r.Resources, []string{"deployments"}) {
		t.Errorf("ReadRule %+v", r)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "web", "uid": "u-1"},
		"spec": map[string]any{"selector": map[string]any{
			"matchLabels":      map[string]any{"app": "web"},
			"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"a", "b"}}},
		}},
	}}
	if got := dep.PodSelector(obj); got != "app=web,tier in (a,b)" {
		t.Errorf("PodSelector = %q", got)
	}
	for _, o := range []map[string]any{{}, {"spec": map[string]any{"selector": map[string]any{}}}, {"spec": map[string]any{"selector": "bad"}}} {
		if got := sts.PodSelector(&unstructured.Unstructured{Object: o}); got != "" {
			t.Errorf("PodSelector(%v) = %q, want none (an empty selector selects every Pod)", o, got)
		}
	}
	pod := func(owner, ownerKind, uid, hash string) *corev1.Pod {
		p := &corev1.Pod{}
		p.Labels = map[string]string{PodTemplateHashLabel: hash}
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: ownerKind, Name: owner, UID: types.UID(uid), Controller: &yes}}
		return p
	}
	for _, tc := range []struct {
		k    *Kind
		pod  *corev1.Pod
		want bool
	}{
		{dep, pod("web-5d8f7", "ReplicaSet", "rs", "5d8f7"), true},
		{dep, pod("web-api-5d8f7", "ReplicaSet", "rs", "5d8f7"), false}, // deployment web-api's
		{dep, pod("web-5d8f7", "ReplicaSet", "rs", "other"), false},
		{dep, pod("web-5d8f7", "StatefulSet", "rs", "5d8f7"), false},
		{sts, pod("web", "StatefulSet", "u-1", ""), true},
		{sts, pod("web", "StatefulSet", "u-2", ""), false},
		{dep, &corev1.Pod{}, false},
	} {
		if got := tc.k.OwnsPod(obj, tc.pod); got != tc.want {
			t.Errorf("%s.OwnsPod(%v) = %v, want %v", tc.k.Kind, tc.pod.OwnerReferences, got, tc.want)
		}
	}
	gated := &corev1.Pod{Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "other"}, {Name: PodAdmissionGate}}}}
	if !PodGated(gated) || PodGated(&corev1.Pod{}) {
		t.Error("PodGated")
	}
}
