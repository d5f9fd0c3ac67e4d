// Package gencluster generates the objects of a large Kueue cluster for
// benchmarks and load tests, so that no bulk data is ever committed: many
// namespaces, each with a LocalQueue, spread over ClusterQueues in cohorts,
// and Workloads in a deterministic mix of states (queued for quota,
// admitted, finished, deactivated, too big for their queue, on a missing
// queue). The same Spec always gives the same objects.
package gencluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kueuebot/kueuebot/internal/kueuename"
)

// Spec sizes a generated cluster.
type Spec struct {
	Workloads     int
	Namespaces    int
	ClusterQueues int
	// CohortSize is how many ClusterQueues share a cohort (0: no cohorts).
	CohortSize int
	// Jobs adds the batch Job that owns each Workload.
	Jobs bool
	// Now anchors creation times (Workloads were created up to two days
	// before it).
	Now time.Time
}

// Cluster is a generated set of objects.
type Cluster struct {
	Namespaces      []*corev1.Namespace
	ResourceFlavors []*kueue.ResourceFlavor
	Cohorts         []*kueue.Cohort
	ClusterQueues   []*kueue.ClusterQueue
	LocalQueues     []*kueue.LocalQueue
	Workloads       []*kueue.Workload
	Jobs            []*batchv1.Job
}

// Kind of generated Workload, by index: the mix of states.
const (
	// StateQueued Workloads wait for quota (Kueue's "insufficient unused
	// quota" message).
	StateQueued = "queued"
	// StateAdmitted Workloads hold quota.
	StateAdmitted = "admitted"
	// StateFinished Workloads succeeded.
	StateFinished = "finished"
	// StateDeactivated Workloads were deactivated by hand.
	StateDeactivated = "deactivated"
	// StateTooBig Workloads ask for more than their ClusterQueue can hold.
	StateTooBig = "too-big"
	// StateMissingQueue Workloads name a LocalQueue that does not exist.
	StateMissingQueue = "missing-queue"
)

// StateOf returns the state of the i-th Workload.
func StateOf(i int) string {
	switch i % 20 {
	case 0, 1, 2, 4, 5, 6, 8, 9:
		return StateQueued
	case 10, 11, 12, 13, 14, 15:
		return StateAdmitted
	case 16, 17:
		return StateFinished
	case 18:
		return StateDeactivated
	case 3:
		return StateTooBig
	}
	return StateMissingQueue // 7, 19
}

// FlavorName is the one ResourceFlavor every ClusterQueue uses.
const FlavorName = "default-flavor"

// Namespace returns the name of the i-th namespace.
func Namespace(i int) string { return fmt.Sprintf("team-%04d", i) }

// ClusterQueue returns the name of the i-th ClusterQueue.
func ClusterQueue(i int) string { return fmt.Sprintf("cq-%03d", i) }

// LocalQueueName is the LocalQueue of every namespace.
const LocalQueueName = "user-queue"

// Generate builds the cluster.
func Generate(s Spec) *Cluster {
	if s.Namespaces <= 0 {
		s.Namespaces = 1
	}
	if s.ClusterQueues <= 0 {
		s.ClusterQueues = 1
	}
	if s.Now.IsZero() {
		s.Now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	}
	c := &Cluster{ResourceFlavors: []*kueue.ResourceFlavor{{
		TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "ResourceFlavor"},
		ObjectMeta: metav1.ObjectMeta{Name: FlavorName, UID: uid("rf", 0)},
	}}}
	created := metav1.NewTime(s.Now.Add(-72 * time.Hour))
	for i := range s.ClusterQueues {
		cq := &kueue.ClusterQueue{
			TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "ClusterQueue"},
			ObjectMeta: metav1.ObjectMeta{Name: ClusterQueue(i), UID: uid("cq", i), CreationTimestamp: created},
			Spec: kueue.ClusterQueueSpec{
				NamespaceSelector: &metav1.LabelSelector{},
				QueueingStrategy:  kueue.BestEffortFIFO,
				StopPolicy:        ptr.To(kueue.None),
				ResourceGroups: []kueue.ResourceGroup{{
					CoveredResources: []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory},
					Flavors: []kueue.FlavorQuotas{{Name: FlavorName, Resources: []kueue.ResourceQuota{
						{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("64")},
						{Name: corev1.ResourceMemory, NominalQuota: resource.MustParse("256Gi")},
					}}},
				}},
			},
			Status: kueue.ClusterQueueStatus{Conditions: []metav1.Condition{{
				Type: kueue.ClusterQueueActive, Status: metav1.ConditionTrue, Reason: "Ready",
				Message: "Can admit new workloads", LastTransitionTime: created,
			}}},
		}
		if s.CohortSize > 0 {
			cq.Spec.CohortName = kueue.CohortReference(fmt.Sprintf("cohort-%03d", i/s.CohortSize))
			if i%s.CohortSize == 0 {
				c.Cohorts = append(c.Cohorts, &kueue.Cohort{
					TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "Cohort"},
					ObjectMeta: metav1.ObjectMeta{Name: string(cq.Spec.CohortName), UID: uid("co", i)},
				})
			}
		}
		c.ClusterQueues = append(c.ClusterQueues, cq)
	}
	for i := range s.Namespaces {
		name := Namespace(i)
		c.Namespaces = append(c.Namespaces, &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("ns", i), Labels: map[string]string{corev1.LabelMetadataName: name}},
		})
		c.LocalQueues = append(c.LocalQueues, &kueue.LocalQueue{
			TypeMeta:   metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "LocalQueue"},
			ObjectMeta: metav1.ObjectMeta{Name: LocalQueueName, Namespace: name, UID: uid("lq", i), CreationTimestamp: created},
			Spec:       kueue.LocalQueueSpec{ClusterQueue: kueue.ClusterQueueReference(ClusterQueue(i % s.ClusterQueues)), StopPolicy: ptr.To(kueue.None)},
		})
	}
	cqUse := map[string]*[2]int64{} // milli-cpu, memory bytes held
	lqUse := map[string]*[2]int64{}
	for i := range s.Workloads {
		wl, job := workload(s, i)
		c.Workloads = append(c.Workloads, wl)
		if s.Jobs {
			c.Jobs = append(c.Jobs, job)
		}
		if st := StateOf(i); st == StateAdmitted {
			cq := string(wl.Status.Admission.ClusterQueue)
			add := func(m map[string]*[2]int64, key string) {
				if m[key] == nil {
					m[key] = &[2]int64{}
				}
				m[key][0] += 1000
				m[key][1] += 2 << 30
			}
			add(cqUse, cq)
			add(lqUse, wl.Namespace)
		}
	}
	for _, cq := range c.ClusterQueues {
		u := cqUse[cq.Name]
		if u == nil {
			u = &[2]int64{}
		}
		cq.Status.FlavorsReservation = []kueue.FlavorUsage{{Name: FlavorName, Resources: []kueue.ResourceUsage{
			{Name: corev1.ResourceCPU, Total: *resource.NewMilliQuantity(u[0], resource.DecimalSI)},
			{Name: corev1.ResourceMemory, Total: *resource.NewQuantity(u[1], resource.BinarySI)},
		}}}
		cq.Status.FlavorsUsage = cq.Status.FlavorsReservation
	}
	for _, lq := range c.LocalQueues {
		u := lqUse[lq.Namespace]
		if u == nil {
			u = &[2]int64{}
		}
		lq.Status.FlavorsReservation = []kueue.LocalQueueFlavorUsage{{Name: FlavorName, Resources: []kueue.LocalQueueResourceUsage{
			{Name: corev1.ResourceCPU, Total: *resource.NewMilliQuantity(u[0], resource.DecimalSI)},
			{Name: corev1.ResourceMemory, Total: *resource.NewQuantity(u[1], resource.BinarySI)},
		}}}
	}
	return c
}

// uid is a stable UID per kind and index: kinds are told apart by the
// third group.
func uid(kind string, i int) types.UID {
	var k uint16
	for _, c := range kind {
		k = k*31 + uint16(c)
	}
	return types.UID(fmt.Sprintf("00000000-0000-%04x-8000-%012d", k, i))
}

// workload builds the i-th Workload and its Job.
func workload(s Spec, i int) (*kueue.Workload, *batchv1.Job) {
	ns := Namespace(i % s.Namespaces)
	cq := ClusterQueue((i % s.Namespaces) % s.ClusterQueues)
	jobName := fmt.Sprintf("job-%06d", i)
	jobUID := uid("job", i)
	state := StateOf(i)
	created := metav1.NewTime(s.Now.Add(-time.Duration(i%2880) * time.Minute))
	cpu, mem := "1", "2Gi"
	if state == StateTooBig {
		cpu = "100"
	}
	queue := LocalQueueName
	if state == StateMissingQueue {
		queue = "missing-queue"
	}
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: jobName, Namespace: ns, UID: jobUID, CreationTimestamp: created,
			Labels: map[string]string{"kueue.x-k8s.io/queue-name": queue},
		},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To[int32](1), Completions: ptr.To[int32](1), Suspend: ptr.To(state != StateAdmitted && state != StateFinished),
			Template: podTemplate(cpu, mem),
		},
	}
	wl := &kueue.Workload{
		TypeMeta: metav1.TypeMeta{APIVersion: kueue.GroupVersion.String(), Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      kueuename.WorkloadName(jobName, jobUID, batchv1.SchemeGroupVersion.WithKind("Job")), // as Kueue names it
			Namespace: ns, UID: uid("wl", i), CreationTimestamp: created, Generation: 1,
			Labels:     map[string]string{"kueue.x-k8s.io/job-uid": string(jobUID)},
			Finalizers: []string{"kueue.x-k8s.io/resource-in-use"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: jobName, UID: jobUID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: kueue.WorkloadSpec{
			Active:    ptr.To(state != StateDeactivated),
			QueueName: kueue.LocalQueueName(queue),
			Priority:  ptr.To[int32](0),
			PodSets: []kueue.PodSet{{
				Name: "main", Count: 1,
				Template: podTemplate(cpu, mem),
			}},
		},
		Status: kueue.WorkloadStatus{
			ResourceRequests: []kueue.PodSetRequest{{Name: "main", Resources: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
			}}},
		},
	}
	at := metav1.NewTime(created.Add(time.Minute))
	cond := func(typ, status, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg, ObservedGeneration: 1, LastTransitionTime: at}
	}
	admission := func() {
		wl.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq), PodSetAssignments: []kueue.PodSetAssignment{{
			Name: "main", Count: ptr.To[int32](1),
			Flavors:       map[corev1.ResourceName]kueue.ResourceFlavorReference{corev1.ResourceCPU: FlavorName, corev1.ResourceMemory: FlavorName},
			ResourceUsage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)},
		}}}
		wl.Status.Conditions = []metav1.Condition{
			cond(kueue.WorkloadQuotaReserved, "True", "QuotaReserved", "Quota reserved in ClusterQueue "+cq),
			cond(kueue.WorkloadAdmitted, "True", "Admitted", "The workload is admitted"),
		}
	}
	switch state {
	case StateQueued:
		wl.Status.Conditions = []metav1.Condition{cond(kueue.WorkloadQuotaReserved, "False", "Pending",
			fmt.Sprintf("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor %s, 1 more needed", FlavorName))}
	case StateTooBig:
		wl.Status.Conditions = []metav1.Condition{cond(kueue.WorkloadQuotaReserved, "False", "Pending",
			fmt.Sprintf("couldn't assign flavors to pod set main: insufficient quota for cpu in flavor %s, request > maximum capacity (100 > 64)", FlavorName))}
	case StateAdmitted:
		admission()
	case StateFinished:
		admission()
		wl.Status.Conditions = append(wl.Status.Conditions, cond(kueue.WorkloadFinished, "True", "Succeeded", "Job finished successfully"))
	case StateDeactivated:
		wl.Status.Conditions = []metav1.Condition{
			cond(kueue.WorkloadQuotaReserved, "False", "Pending", "The workload is deactivated"),
			cond(kueue.WorkloadEvicted, "True", "Deactivated", "The workload is deactivated"),
		}
	case StateMissingQueue:
		wl.Status.Conditions = []metav1.Condition{cond(kueue.WorkloadQuotaReserved, "False", "Inadmissible",
			"LocalQueue missing-queue doesn't exist")}
	}
	return wl, job
}

func podTemplate(cpu, mem string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "train"}},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "main", Image: "registry.k8s.io/pause:3.10", ImagePullPolicy: corev1.PullIfNotPresent,
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
				}},
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler",
			TerminationGracePeriodSeconds: ptr.To[int64](30),
		},
	}
}

// Objects returns every object, queue objects first.
func (c *Cluster) Objects() []runtime.Object {
	var out []runtime.Object
	for _, o := range c.Namespaces {
		out = append(out, o)
	}
	for _, o := range c.ResourceFlavors {
		out = append(out, o)
	}
	for _, o := range c.Cohorts {
		out = append(out, o)
	}
	for _, o := range c.ClusterQueues {
		out = append(out, o)
	}
	for _, o := range c.LocalQueues {
		out = append(out, o)
	}
	for _, o := range c.Jobs {
		out = append(out, o)
	}
	for _, o := range c.Workloads {
		out = append(out, o)
	}
	return out
}

// WriteYAMLList writes the objects as `kubectl get -o yaml` does: one
// `kind: List` document.
func (c *Cluster) WriteYAMLList(w io.Writer) error {
	if _, err := io.WriteString(w, "apiVersion: v1\nitems:\n"); err != nil {
		return err
	}
	for _, o := range c.Objects() {
		b, err := sigsyaml.Marshal(o)
		if err != nil {
			return err
		}
		// Indent as kubectl does: "- " then two spaces.
		lines := bytes.SplitAfter(bytes.TrimRight(b, "\n"), []byte("\n"))
		for j, l := range lines {
			prefix := "  "
			if j == 0 {
				prefix = "- "
			}
			if _, err := io.WriteString(w, prefix); err != nil {
				return err
			}
			if _, err := w.Write(l); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return err
}

// WriteYAMLDocuments writes the objects as multi-document YAML.
func (c *Cluster) WriteYAMLDocuments(w io.Writer) error {
	for _, o := range c.Objects() {
		b, err := sigsyaml.Marshal(o)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSONList writes the objects as `kubectl get -o json` does: one
// indented `kind: List` object.
func (c *Cluster) WriteJSONList(w io.Writer) error {
	list := struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []runtime.Object `json:"items"`
	}{APIVersion: "v1", Kind: "List", Items: c.Objects()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	return enc.Encode(list)
}
