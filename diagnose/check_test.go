package diagnose_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/resources"
	"sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

func TestParseManifestRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "# nothing here\n---\n", "empty"},
		{"not YAML", "apiVersion: batch/v1\nkind: Job\n metadata: [\n", "not YAML"},
		{"a scalar", "just some words", "not a Kubernetes object"},
		{"several documents", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: b}\n", "2 YAML documents (Job a, Job b)"},
		{"a List", "apiVersion: v1\nkind: List\nitems: [{apiVersion: batch/v1, kind: Job, metadata: {name: a}}]\n", "List of 1 objects"},
		{"no kind", "metadata: {name: a}\nspec: {}\n", "no apiVersion or kind"},
		{"not a job kind", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: web}\n", "Kind DaemonSet (apps/v1) is not a job kind"},
		{"same kind, other group", "apiVersion: example.com/v1\nkind: Job\nmetadata: {name: web}\n", "Kind Job (example.com/v1) is not a job kind"},
		{"a Workload", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\n", "is a Workload"},
		{"no name", "apiVersion: batch/v1\nkind: Job\nmetadata: {}\n", "no metadata.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := diagnose.ParseManifest([]byte(tt.in))
			var me *diagnose.ManifestError
			if err == nil || !errors.As(err, &me) || !strings.Contains(me.Message, tt.want) {
				t.Fatalf("ParseManifest = %v, want a ManifestError containing %q", err, tt.want)
			}
		})
	}
	obj, k, err := diagnose.ParseManifest([]byte(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"generateName":"train-"},"spec":{"parallelism":3}}`))
	if err != nil || k.Kind != "Job" || obj.GetName() != "train-<generated>" {
		t.Fatalf("JSON with generateName: %v %v %v", obj, k, err)
	}
}

// TestPlannedPodSetsEqualRecordedWorkloads holds check's pod sets to the
// Workloads the real Kueue created in the sandbox scenarios, for every
// job kind recorded there: the same pod set names, counts and minimum
// counts, and, where Kueue wrote its totals (status.resourceRequests, or
// the admission's resourceUsage), the same requests after the
// namespace's LimitRanges are applied. The recorded jobs carry the API
// server's defaults; test/e2e holds the same for raw manifests.
func TestPlannedPodSetsEqualRecordedWorkloads(t *testing.T) {
	dumps, _ := filepath.Glob(filepath.Join(scenarioDumps, "*.yaml"))
	compared := map[string]int{}
	for _, dump := range dumps {
		jobs, wls, lrs := readDump(t, dump)
		for _, wl := range wls {
			var job *unstructured.Unstructured
			for _, o := range wl.OwnerReferences {
				if j := jobs[string(o.UID)]; j != nil && (job == nil || job.GetKind() == "Pod") { // a StatefulSet over its pods
					job = j
				}
			}
			if job != nil && job.GetKind() == "Pod" {
				// A Deployment's pod: its Workload is the pod's, and check
				// plans one pod of the Deployment.
				if d := deploymentOf(job, jobs); d != nil {
					job = d
				}
			}
			if job == nil {
				continue
			}
			name := filepath.Base(dump) + " " + job.GetKind() + "/" + job.GetName()
			t.Run(name, func(t *testing.T) {
				podSets, err := diagnose.PlannedPodSets(job)
				if job.GetKind() == "TrainJob" || job.GetKind() == "AppWrapper" || job.GetLabels()[diagnose.PodGroupNameLabel] != "" {
					if err == nil {
						t.Fatalf("%s: want ErrPlanUnsupported", job.GetKind())
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				adj := diagnose.AdjustPlannedPodSets(podSets, lrs[wl.Namespace], nil)
				if len(adj.UnknownRuntimeClasses) > 0 {
					t.Skipf("RuntimeClasses %v are not in the dump", adj.UnknownRuntimeClasses)
				}
				want, got := podSetShape(wl.Spec.PodSets), podSetShape(podSets)
				if wl.Status.Admission != nil {
					// Partial admission: Kueue resized the recorded job to
					// the count it admitted.
					for i, a := range wl.Status.Admission.PodSetAssignments {
						if a.Count != nil && i < len(want) {
							want[i].Count = *a.Count
						}
					}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("pod sets (-Kueue +check):\n%s", d)
				}
				kueueTotals := map[string]map[corev1.ResourceName]int64{}
				for _, rr := range wl.Status.ResourceRequests {
					kueueTotals[string(rr.Name)] = units(rr.Resources)
				}
				if wl.Status.Admission != nil {
					for _, a := range wl.Status.Admission.PodSetAssignments {
						if a.Count == nil || *a.Count == countOf(wl, a.Name) {
							kueueTotals[string(a.Name)] = units(a.ResourceUsage)
						}
					}
				}
				for _, p := range diagnose.SummarizePodSets(podSets) {
					want, ok := kueueTotals[p.Name]
					if !ok {
						continue
					}
					if d := cmp.Diff(want, units(p.Total)); d != "" {
						t.Errorf("pod set %s totals (-Kueue +check):\n%s", p.Name, d)
					}
				}
				compared[job.GetKind()]++
			})
		}
	}
	for _, k := range kinds.All() {
		switch k.Kind {
		case kinds.Workload, "TrainJob", "AppWrapper":
			continue // check refuses them (ErrPlanUnsupported)
		case kinds.Pod:
			continue // only a pod group's Workload is recorded; test/e2e checks a single Pod
		}
		if compared[k.Kind] == 0 {
			t.Errorf("no recorded Workload of a %s to compare with", k.Kind)
		}
	}
}

// deploymentOf returns the Deployment of the dump that owns pod through
// its ReplicaSet (named <deployment>-<pod-template-hash>), if any.
func deploymentOf(pod *unstructured.Unstructured, jobs map[string]*unstructured.Unstructured) *unstructured.Unstructured {
	for _, o := range pod.GetOwnerReferences() {
		if o.Kind != "ReplicaSet" {
			continue
		}
		for _, j := range jobs {
			if j.GetKind() == "Deployment" && j.GetNamespace() == pod.GetNamespace() && o.Name == j.GetName()+"-"+pod.GetLabels()["pod-template-hash"] {
				return j
			}
		}
	}
	return nil
}

type shape struct {
	Name     string
	Count    int32
	MinCount *int32
}

func podSetShape(pss []kueue.PodSet) []shape {
	out := make([]shape, 0, len(pss))
	for _, ps := range pss {
		out = append(out, shape{string(ps.Name), ps.Count, ps.MinCount})
	}
	return out
}

func countOf(wl *kueue.Workload, name kueue.PodSetReference) int32 {
	for _, ps := range wl.Spec.PodSets {
		if ps.Name == name {
			return ps.Count
		}
	}
	return -1
}

// units is a resource list in Kueue's units, without zeros and pods.
func units(rl corev1.ResourceList) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for r, q := range rl {
		if v := resources.ResourceValue(r, q); v != 0 && r != corev1.ResourcePods {
			out[r] = v
		}
	}
	return out
}

// readDump returns a scenario dump's job objects by UID, its Workloads and
// its LimitRanges by namespace.
func readDump(t *testing.T, path string) (map[string]*unstructured.Unstructured, []*kueue.Workload, map[string][]corev1.LimitRange) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[string]*unstructured.Unstructured{}
	var wls []*kueue.Workload
	lrs := map[string][]corev1.LimitRange{}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil || m == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		gvk := u.GroupVersionKind()
		switch gvk.Kind {
		case "Workload":
			var wl kueue.Workload
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &wl); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			wls = append(wls, &wl)
		case "LimitRange":
			var lr corev1.LimitRange
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &lr); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			lrs[lr.Namespace] = append(lrs[lr.Namespace], lr)
		default:
			if _, ok := kinds.ByGroupKind(gvk.GroupKind()); ok {
				jobs[string(u.GetUID())] = u
			}
		}
	}
	return jobs, wls, lrs
}

// planned builds the Snapshot check judges for manifest in lq, with the
// given queue objects.
func planned(t *testing.T, manifest string, lq *kueue.LocalQueue, cq *kueue.ClusterQueue, members ...kueue.ClusterQueue) (*diagnose.Snapshot, diagnose.PlanAdjustments) {
	t.Helper()
	job, _, err := diagnose.ParseManifest([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	podSets, err := diagnose.PlannedPodSets(job)
	if err != nil {
		t.Fatal(err)
	}
	adj := diagnose.AdjustPlannedPodSets(podSets, nil, nil)
	job.SetNamespace("team-a")
	s := &diagnose.Snapshot{
		Now:                 time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC),
		Target:              diagnose.Target{Kind: job.GetKind(), Namespace: "team-a", Name: job.GetName()},
		Job:                 job,
		Workload:            diagnose.PlannedWorkload(job, "team-a", lq.Name, podSets),
		LocalQueue:          lq,
		ClusterQueue:        cq,
		CohortClusterQueues: members,
		ResourceFlavors:     []kueue.ResourceFlavor{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}},
		Planned:             &diagnose.Planned{File: "job.yaml"},
	}
	if cq.Spec.CohortName != "" {
		s.Cohorts = []kueue.Cohort{}
	}
	return s, adj
}

func testLQ(name, cq string) *kueue.LocalQueue {
	return &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"}, Spec: kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(cq)}}
}

// testCQ is a ClusterQueue with nominal cpu in flavor default, of which
// used is reserved.
func testCQ(name, cohort, nominal, used string) *kueue.ClusterQueue {
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueue.ClusterQueueSpec{
			CohortName:        kueue.CohortReference(cohort),
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueue.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{corev1.ResourceCPU},
				Flavors:          []kueue.FlavorQuotas{{Name: "default", Resources: []kueue.ResourceQuota{{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse(nominal)}}}},
			}},
		},
	}
	cq.Status.FlavorsReservation = []kueue.FlavorUsage{{Name: "default", Resources: []kueue.ResourceUsage{{Name: corev1.ResourceCPU, Total: resource.MustParse(used)}}}}
	return cq
}

const jobManifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 3
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources: {requests: {cpu: "1"}}
`

func TestCheckAnswers(t *testing.T) {
	tests := []struct {
		name     string
		cq       *kueue.ClusterQueue
		members  []kueue.ClusterQueue
		want     diagnose.Fit
		mentions []string
		command  string
	}{
		{name: "fits free quota", cq: testCQ("cq", "", "4", "0"), want: diagnose.FitAdmittedNow,
			mentions: []string{"Kueue would admit it now", "3 cpu", "4 cpu is free now"}},
		{name: "fits only by borrowing", cq: testCQ("cq", "pool", "2", "0"), members: []kueue.ClusterQueue{*testCQ("lender", "pool", "4", "1")}, want: diagnose.FitAdmittedNow,
			mentions: []string{"would borrow 1 cpu from cohort pool"}},
		{name: "waits for quota in use", cq: testCQ("cq", "", "4", "2"), want: diagnose.FitWaits,
			mentions: []string{"If submitted now", "2 cpu is free now", "2 reserved by other workloads"}},
		{name: "never: above the maximum", cq: testCQ("cq", "", "2", "0"), want: diagnose.FitNever,
			mentions: []string{"can ever hold", "parallelism 2 fits"},
			command:  `kubectl patch --local -f job.yaml --type=merge -p '{"spec":{"parallelism":2}}' -o yaml | kubectl create -n team-a -f -`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, adj := planned(t, jobManifest, testLQ("user-queue", tt.cq.Name), tt.cq, tt.members...)
			qc := diagnose.CheckQueue(s, adj)
			if qc.Fit != tt.want {
				t.Fatalf("fit %s, want %s: %s %s", qc.Fit, tt.want, qc.Headline, qc.Detail)
			}
			text := qc.Headline + " " + qc.Detail
			for _, m := range qc.Remedies {
				text += " " + m.Summary
			}
			for _, m := range tt.mentions {
				if !strings.Contains(text, m) {
					t.Errorf("answer lacks %q:\n%s", m, text)
				}
			}
			if tt.command != "" && !hasCommand(qc.Remedies, tt.command) {
				t.Errorf("no remedy with command %s: %+v", tt.command, qc.Remedies)
			}
			if qc.Estimate != nil {
				t.Errorf("estimate %v set without an estimator", qc.Estimate)
			}
		})
	}
}

func hasCommand(rs []diagnose.Remedy, cmd string) bool {
	for _, r := range rs {
		if r.Command == cmd {
			return true
		}
	}
	return false
}

func TestCheckMissingLocalQueue(t *testing.T) {
	s, adj := planned(t, jobManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "4", "0"))
	s.LocalQueue, s.ClusterQueue = nil, nil
	s.Gaps = []diagnose.Gap{{Kind: "LocalQueue", Name: "user-queue", Reason: diagnose.GapNotFound}}
	s.NamespaceLocalQueues = []kueue.LocalQueue{*testLQ("user-queues", "cq")}
	qc := diagnose.CheckQueue(s, adj)
	if qc.Fit != diagnose.FitNever || qc.Verdict.Cause != diagnose.CauseLocalQueueNotFound {
		t.Fatalf("fit %s %s/%s, want Never LocalQueueNotFound", qc.Fit, qc.Verdict.Code, qc.Verdict.Cause)
	}
	want := "kubectl label --local -f job.yaml kueue.x-k8s.io/queue-name=user-queues --overwrite -o yaml | kubectl create -n team-a -f -"
	if !hasCommand(qc.Remedies, want) || !strings.Contains(qc.Detail, `Did you mean "user-queues"?`) {
		t.Errorf("remedies %+v, detail %q: want the relabel of the manifest to user-queues", qc.Remedies, qc.Detail)
	}
}

// TestAdjustPlannedPodSets holds the adjustments to Kueue's
// AdjustResources: the RuntimeClass overhead when the template has none,
// the LimitRange's container defaults (first default wins), then limits
// as missing requests; and Kueue's LimitRange validation.
func TestAdjustPlannedPodSets(t *testing.T) {
	rc := "kata"
	podSets := []kueue.PodSet{{Name: "main", Count: 2, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RuntimeClassName: &rc,
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}},
		},
	}}}}
	lrs := []corev1.LimitRange{
		{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}, Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}}},
		{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}},
	}
	rcs := map[string]*nodev1.RuntimeClass{"kata": {Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}}}
	adj := diagnose.AdjustPlannedPodSets(podSets, lrs, rcs)
	got := diagnose.SummarizePodSets(podSets)[0]
	want := map[corev1.ResourceName]int64{corev1.ResourceCPU: 2750, corev1.ResourceMemory: 1 << 30}
	if d := cmp.Diff(want, units(got.PerPod)); d != "" {
		t.Errorf("per pod (-want +got):\n%s", d)
	}
	if len(adj.Overhead) != 1 || len(adj.LimitRangeDefaults) != 1 || !strings.Contains(adj.LimitRangeDefaults[0], "container a: cpu request 500m") || len(adj.LimitRangeViolations) != 0 {
		t.Errorf("adjustments %+v", adj)
	}
	podSets[0].Template.Spec.Containers[1].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("8")
	if adj := diagnose.AdjustPlannedPodSets(podSets, lrs, rcs); len(adj.LimitRangeViolations) != 1 {
		t.Errorf("8 cpu above the LimitRange max of 4: violations %v", adj.LimitRangeViolations)
	}
	podSets[0].Template.Spec.Containers[1].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}, Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}
	if adj := diagnose.AdjustPlannedPodSets(podSets, nil, rcs); len(adj.LimitRangeViolations) != 1 || !strings.Contains(adj.LimitRangeViolations[0], "container b requests more cpu than its limit") {
		t.Errorf("request above its limit: violations %v", adj.LimitRangeViolations)
	}
	other := "gvisor"
	podSets[0].Template.Spec.RuntimeClassName, podSets[0].Template.Spec.Overhead = &other, nil
	if adj := diagnose.AdjustPlannedPodSets(podSets, nil, rcs); strings.Join(adj.UnknownRuntimeClasses, ",") != "gvisor" {
		t.Errorf("unread RuntimeClass: %v", adj.UnknownRuntimeClasses)
	}
}

func TestCheckUnreadableClusterQueue(t *testing.T) {
	s, adj := planned(t, jobManifest, testLQ("user-queue", "cq"), testCQ("cq", "", "4", "0"))
	s.ClusterQueue, s.ResourceFlavors = nil, nil
	s.Gaps = []diagnose.Gap{{Kind: "ClusterQueue", Name: "cq", Reason: diagnose.GapForbidden}}
	qc := diagnose.CheckQueue(s, adj)
	if qc.Fit != diagnose.FitUnknown || !strings.Contains(qc.Headline, "could not read ClusterQueue cq") {
		t.Fatalf("fit %s %q, want Unknown naming the ClusterQueue", qc.Fit, qc.Headline)
	}
	if len(qc.Gaps) != 1 || qc.Gaps[0].Reason != diagnose.GapForbidden {
		t.Errorf("gaps %+v, want the Forbidden ClusterQueue", qc.Gaps)
	}
}

func TestPlanNotes(t *testing.T) {
	ray := func(extra string) *unstructured.Unstructured {
		obj, _, err := diagnose.ParseManifest([]byte("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\nspec:\n  rayClusterSpec: {headGroupSpec: {template: {spec: {containers: [{name: h, image: i}]}}}}\n" + extra))
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	if n := diagnose.PlanNotes(ray("")); len(n) != 1 || !strings.Contains(n[0].String(), "shutdownAfterJobFinishes: true") {
		t.Errorf("without shutdownAfterJobFinishes: %q", n)
	}
	if n := diagnose.PlanNotes(ray("  shutdownAfterJobFinishes: true\n")); len(n) != 0 {
		t.Errorf("with shutdownAfterJobFinishes: %q", n)
	}
}
