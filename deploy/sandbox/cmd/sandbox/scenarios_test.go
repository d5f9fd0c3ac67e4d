package main

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// verdicts is the verdict table (stage -> code -> allowed causes; an empty set allows only "").
var verdicts = map[string]map[string][]string{
	"Resolve": {"NotFound": nil, "NotManagedByKueue": {"NoQueueName"}, "WorkloadMissing": nil},
	"Admission": {
		"Misconfigured":             {"LocalQueueNotFound", "ClusterQueueNotFound", "ClusterQueueInactive", "NamespaceNotSelected", "ResourceNotCovered", "FlavorNotFound", "InvalidResources"},
		"OnHold":                    {"LocalQueueStopped", "ClusterQueueStopped"},
		"Deactivated":               {"Manual", "RequeuingLimitExceeded", "MaximumExecutionTimeExceeded", "AdmissionCheckRejected"},
		"NoMatchingFlavor":          {"UntoleratedTaint", "NodeAffinityMismatch", "TopologyMismatch"},
		"ExceedsMaxQuota":           nil,
		"WaitingForQuota":           {"QuotaInUse", "BorrowingLimited", "PendingPreemption"},
		"PendingEvaluation":         {"StrictFIFOBlocked", "NotYetEvaluated"},
		"WaitingForAdmissionChecks": {"CheckPending", "CheckRetry"},
		"Requeuing":                 {"Preempted", "PodsReadyTimeout", "NodeFailures", "Backoff"},
	},
	"Scheduling": {
		"Starting":          {"JobSuspended", "PodsNotCreated"},
		"PodsUnschedulable": {"InsufficientResources", "UntoleratedTaint", "NodeAffinityMismatch", "UnboundVolume", "SchedulingGated", "Other"},
		"PodsNotStarting":   {"ImagePull", "Other"},
		"Running":           nil,
		"Finished":          nil,
	},
}

// TestScenarioDumps checks every scenario's expect.yaml against the verdict table and its committed
// dump: the target Job is there unless the verdict is NotFound, and a Workload owned by it exists
// exactly when Kueue manages it.
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
			causes, ok := verdicts[e.Stage][e.Code]
			if !ok {
				t.Fatalf("stage/code %s/%s not in the verdict table", e.Stage, e.Code)
			}
			if e.Cause != "" && !contains(causes, e.Cause) || e.Cause == "" && len(causes) > 0 && e.Code != "NotFound" {
				t.Errorf("cause %q not allowed for %s/%s (allowed %v)", e.Cause, e.Stage, e.Code, causes)
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
			wantWL := e.Code != "NotFound" && e.Code != "NotManagedByKueue"
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
	for _, o := range objs {
		if o.GetKind() == kind && o.GetNamespace() == ns && o.GetName() == name {
			target = o
		}
		if o.GetKind() == "Workload" && o.GetNamespace() == ns {
			for _, r := range o.GetOwnerReferences() {
				if r.Kind == kind && r.Name == name {
					workload = o
				}
			}
		}
	}
	return target, workload
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
