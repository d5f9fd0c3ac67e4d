package main

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestScenarioDumps checks every scenario's expect.yaml against its committed dump: the target is
// there unless the verdict is NotFound, and a Workload owned by it exists exactly when Kueue made
// one. (The product module checks the verdicts against diagnose's contract, and replays the dumps.)
func TestScenarioDumps(t *testing.T) {
	dirs, err := filepath.Glob("../../scenarios/*/expect.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	for _, p := range dirs {
		name := filepath.Base(filepath.Dir(p))
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var e expectation
			if err := yaml.UnmarshalStrict(b, &e); err != nil {
				t.Fatalf("expect.yaml: %v", err)
			}
			if e.Stage == "" || e.Code == "" {
				t.Errorf("stage and code must be set: %+v", e)
			}
			for _, v := range e.Or {
				if v.Stage == "" || v.Code == "" || v.Why == "" {
					t.Errorf("an alternative verdict needs stage, code and why: %+v", v)
				}
			}
			if _, err := loadScenario(filepath.Dir(p)); err != nil {
				t.Error(err)
			}
			if e.User == "" || e.Target.Kind == "" || e.Target.Name == "" || e.Target.Namespace == "" {
				t.Errorf("target and user must be set: %+v", e)
			}
			objs, err := decodeFile(filepath.Join("../../../../deploy/examples/scenarios", name+".yaml"))
			if err != nil {
				t.Fatalf("dump: %v", err)
			}
			job, wl := find(objs, e.Target.Kind, e.Target.Namespace, e.Target.Name)
			if (job != nil) == (e.Code == "NotFound") {
				t.Errorf("target %s present=%t but code is %s", e.Target.Name, job != nil, e.Code)
			}
			wantWL := e.Code != "NotFound" && e.Code != "NotManagedByKueue" && e.Code != "WorkloadMissing"
			if (wl != nil) != wantWL {
				t.Errorf("workload of %s present=%t, want %t", e.Target.Name, wl != nil, wantWL)
			}
			for _, o := range objs {
				if _, found, _ := unstructured.NestedFieldNoCopy(o.Object, "metadata", "managedFields"); found {
					t.Errorf("%s %s still has managedFields", o.GetKind(), o.GetName())
				}
			}
		})
	}
}

func find(objs []*unstructured.Unstructured, kind, ns, name string) (target, workload *unstructured.Unstructured) {
	// A Deployment owns no Workload: each of its Pods (controlled by its
	// ReplicaSet <name>-<pod-template-hash>) owns one.
	pods := map[string]bool{}
	if kind == "Deployment" {
		for _, o := range objs {
			h := o.GetLabels()["pod-template-hash"]
			for _, r := range o.GetOwnerReferences() {
				if o.GetKind() == "Pod" && o.GetNamespace() == ns && h != "" && r.Kind == "ReplicaSet" && r.Name == name+"-"+h {
					pods[o.GetName()] = true
				}
			}
		}
	}
	for _, o := range objs {
		if o.GetKind() == kind && o.GetNamespace() == ns && o.GetName() == name {
			target = o
		}
		if kind == "Workload" && o.GetKind() == "Workload" && o.GetNamespace() == ns && o.GetName() == name {
			workload = o
		}
		if o.GetKind() == "Workload" && o.GetNamespace() == ns {
			for _, r := range o.GetOwnerReferences() {
				if r.Kind == kind && r.Name == name || r.Kind == "Pod" && pods[r.Name] {
					workload = o
				}
			}
		}
	}
	return target, workload
}

// TestScenarioNamesAreDisjoint: no two scenarios share a namespace or a
// cluster-scoped object on either cluster, so that the runner may run the
// scenarios of one Kueue configuration at once (runGroup), each one's
// cleanup deleting only its own objects.
func TestScenarioNamesAreDisjoint(t *testing.T) {
	dirs, err := filepath.Glob("../../scenarios/*/expect.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no scenarios found: %v", err)
	}
	owner := map[string]string{}
	claim := func(key, scenario string) {
		if prev, ok := owner[key]; ok && prev != scenario {
			t.Errorf("%s belongs to scenarios %s and %s", key, prev, scenario)
		}
		owner[key] = scenario
	}
	for _, expect := range dirs {
		dir := filepath.Dir(expect)
		name := filepath.Base(dir)
		sf, err := loadScenario(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cl := range []string{"", roleWorker} {
			so, err := readScenarioObjects(dir, sf, cl)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for ns := range so.namespaces {
				claim(cl+" namespace "+ns, name)
			}
			for kind, names := range so.clusterNames {
				for n := range names {
					claim(cl+" "+kind+" "+n, name)
				}
			}
		}
	}
	if len(owner) < 2*len(dirs) {
		t.Errorf("%d names over %d scenarios: the scenarios were not read", len(owner), len(dirs))
	}
}
