package fetch

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// Subject is one thing to classify: a Workload, or a job that names a
// LocalQueue but has no Workload (Kueue never created one: WorkloadMissing).
type Subject struct {
	// Target is what the job's owner would ask about: the owning job when
	// the store holds it, else the Workload.
	Target diagnose.Target
	// Workload is nil for a job without one.
	Workload *kueue.Workload
	// LocalQueue is the Workload's spec.queueName, or the job's
	// kueue.x-k8s.io/queue-name label.
	LocalQueue string
	// Created is the Workload's creation, or the job's.
	Created time.Time
}

// Subjects returns a Subject for every Workload of the store, and for every
// job of a supported kind that carries the queue-name label and owns no
// Workload, sorted by namespace, then kind, then name. A job controlled by
// another supported job (a Job of a JobSet) is part of its parent's
// Workload, not a subject of its own; a pod group without a Workload is
// one subject, its first Pod by name (the one a diagnosis of the group
// reads). A Deployment's Pods' Workloads (Kueue makes one per Pod) are
// one subject, the Deployment, with the Workload its diagnosis reads (the
// oldest Pod Kueue still holds); its other Pods' Workloads are subjects by
// their Workload's name, like a job's older Workloads. A Deployment
// without a Workload (no Pod yet) is not a subject.
func (s *Store) Subjects() []Subject { return once(s, &s.subjects, s.findSubjects) }

func (s *Store) findSubjects() []Subject {
	var out []Subject
	// A job with several Workloads (a finished one and its successor) is
	// the target of the one a diagnosis of the job picks; the others are
	// classified as Workloads.
	best := map[diagnose.Target]*kueue.Workload{}
	// A Deployment's Pods' Workloads are one subject, the Deployment,
	// whose Workload is the one its diagnosis picks (perPod).
	picked := map[diagnose.Target]string{}
	for _, wl := range s.Workloads() {
		if wl.Namespace == "" || wl.Name == "" {
			continue // not a namespaced object: no target to name
		}
		t := TargetOf(wl, s)
		if t.Kind == kinds.Pod {
			if d, ok := s.deploymentOf(t); ok {
				if _, done := picked[d]; !done {
					picked[d] = ""
					if snap, err := s.Snapshot(d, time.Time{}); err == nil && snap.Workload != nil {
						picked[d] = snap.Workload.Name
					}
				}
				if picked[d] != "" {
					t = d
				}
			}
		}
		out = append(out, Subject{Target: t, Workload: wl, LocalQueue: string(wl.Spec.QueueName), Created: wl.CreationTimestamp.Time})
		switch {
		case t.Kind == kinds.Deployment:
			if wl.Name == picked[t] {
				best[t] = wl
			}
		case t.Kind != KindWorkload && (best[t] == nil || betterWorkload(wl, best[t])):
			best[t] = wl
		}
	}
	for i := range out {
		if t := out[i].Target; t.Kind != KindWorkload && best[t] != out[i].Workload {
			out[i].Target = diagnose.Target{Kind: KindWorkload, Namespace: t.Namespace, Name: out[i].Workload.Name}
		}
	}
	// Every kind but Workload: a plain Pod (or a pod group) Kueue made no
	// Workload for is a subject too.
	for _, k := range kinds.All() {
		if k.Kind == kinds.Workload || k.WorkloadPerPod {
			// A Deployment has no Workload of its own: it is a subject
			// through its Pods' Workloads, above.
			continue
		}
		gk := schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind}
		idx := s.lookup(gk)
		if idx == nil {
			continue
		}
		groups := map[string]int{} // "namespace/group" -> index in out
		for _, obj := range idx.List() {
			job, ok := obj.(metav1.Object)
			if !ok || job.GetNamespace() == "" {
				continue
			}
			queue := job.GetLabels()[QueueNameLabel]
			if queue == "" || s.hasWorkload(&k, job) {
				continue
			}
			if g := job.GetLabels()[PodGroupNameLabel]; k.Kind == "Pod" && g != "" {
				key := job.GetNamespace() + "/" + g
				if i, ok := groups[key]; ok {
					if job.GetName() < out[i].Target.Name {
						out[i].Target.Name, out[i].Created = job.GetName(), job.GetCreationTimestamp().Time
					}
					continue
				}
				groups[key] = len(out)
			}
			out = append(out, Subject{
				Target:     diagnose.Target{Kind: k.Kind, Namespace: job.GetNamespace(), Name: job.GetName()},
				LocalQueue: queue, Created: job.GetCreationTimestamp().Time,
			})
		}
	}
	slices.SortFunc(out, func(a, b Subject) int {
		if c := cmp.Compare(a.Target.Namespace, b.Target.Namespace); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Target.Kind, b.Target.Kind); c != 0 {
			return c
		}
		return cmp.Compare(a.Target.Name, b.Target.Name)
	})
	return out
}

// deploymentOf returns the Deployment a Pod target belongs to, when the
// store holds both (kinds.Kind.OwnsPod: its ReplicaSet is named
// <deployment>-<pod-template-hash>).
func (s *Store) deploymentOf(t diagnose.Target) (diagnose.Target, bool) {
	pod := get[corev1.Pod](s, gkPod, t.Namespace, t.Name)
	if pod == nil {
		return diagnose.Target{}, false
	}
	ref := controllerRef(pod)
	h := pod.Labels[kinds.PodTemplateHashLabel]
	if ref == nil || ref.Kind != "ReplicaSet" || h == "" || !strings.HasSuffix(ref.Name, "-"+h) {
		return diagnose.Target{}, false
	}
	k, _ := kinds.ByKind(kinds.Deployment)
	name := strings.TrimSuffix(ref.Name, "-"+h)
	d := get[unstructured.Unstructured](s, k.GroupKind(), t.Namespace, name)
	if d == nil || !k.OwnsPod(d, pod) {
		return diagnose.Target{}, false
	}
	return diagnose.Target{Kind: kinds.Deployment, Namespace: t.Namespace, Name: name}, true
}

// namesUnknownPriorityClass reports whether a job of the store that has
// no Workload names a WorkloadPriorityClass the store does not hold:
// whether that class exists is what tells why Kueue made no Workload.
func (s *Store) namesUnknownPriorityClass() bool {
	for _, k := range kinds.All() {
		if k.Kind == kinds.Workload {
			continue
		}
		idx := s.lookup(schema.GroupKind{Group: k.Resource.Group, Kind: k.Kind})
		if idx == nil {
			continue
		}
		for _, obj := range idx.List() {
			job, ok := obj.(metav1.Object)
			if !ok {
				continue
			}
			name := job.GetLabels()[diagnose.WorkloadPriorityClassLabel]
			if name != "" && !s.hasObject(gkPriorityClass, "", name) && !s.hasWorkload(&k, job) {
				return true
			}
		}
	}
	return false
}

// hasWorkload reports whether the job has a Workload in the store, or
// belongs to its parent job's.
func (s *Store) hasWorkload(k *kinds.Kind, job metav1.Object) bool {
	if ref := controllerRef(job); ref != nil {
		if _, ok := ownerKind(ref.APIVersion, ref.Kind); ok {
			return true
		}
	}
	if name := job.GetLabels()[PrebuiltWorkloadLabel]; name != "" {
		return get[kueue.Workload](s, gkWorkload, job.GetNamespace(), name) != nil
	}
	for _, wl := range byIndex[kueue.Workload](s, gkWorkload, indexOwner, string(job.GetUID())) {
		if wl.Namespace == job.GetNamespace() {
			return true
		}
	}
	// A job without a UID (hand-written dump) is matched by Kueue's name.
	gvk := k.GroupVersionKind()
	switch j := job.(type) {
	case *unstructured.Unstructured:
		gvk = j.GroupVersionKind()
	case *batchv1.Job, *jobRecord:
		gvk = batchv1.SchemeGroupVersion.WithKind("Job")
	}
	name := WorkloadName(job.GetName()+k.WorkloadNameSuffix, job.GetUID(), gvk)
	return get[kueue.Workload](s, gkWorkload, job.GetNamespace(), name) != nil
}

// ClassifyOptions tune Classify.
type ClassifyOptions struct {
	// Brief leaves out of the reports what a summary of many workloads
	// never shows: quota rows, findings and evidence (diagnose.Shared).
	Brief bool
}

// Classify analyzes each subject's target from the store, on every core,
// and hands its report to keep, which is called concurrently (for different
// i) and must not retain r. The Snapshots share the store's objects instead
// of copying them (Analyze only reads), and one diagnose.Shared, so each
// ClusterQueue's quota tree is built once per call, not once per Workload:
// classifying thousands of Workloads costs the reports alone. It makes no
// request.
func (s *Store) Classify(subjects []Subject, now time.Time, opts ClassifyOptions, keep func(i int, r *diagnose.Report)) error {
	src := &storeSource{st: s, shared: true}
	shared := diagnose.NewShared()
	shared.Brief = opts.Brief
	var mu sync.Mutex
	var firstErr error
	errAt := len(subjects)
	parallel(len(subjects), func(i int) {
		snap, err := collect(context.Background(), src, subjects[i].Target, now)
		if err != nil {
			mu.Lock()
			if i < errAt {
				errAt, firstErr = i, fmt.Errorf("%s/%s: %w", subjects[i].Target.Namespace, subjects[i].Target.Name, err)
			}
			mu.Unlock()
			return
		}
		snap.Shared = shared
		r := diagnose.Analyze(snap)
		keep(i, &r)
	})
	return firstErr
}
