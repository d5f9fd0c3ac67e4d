package explain

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/pager"

	"github.com/kueuebot/kueuebot/rbac"
)

// JobNamer is implemented by Readers that can list the names of the
// caller's jobs cheaply, to settle which of several candidate names a
// question means.
type JobNamer interface {
	// JobNames returns the names of the jobs (the owners of Workloads, and
	// the Workloads themselves) in namespaces, as id may see them.
	JobNames(ctx context.Context, id rbac.Identity, namespaces []string) (map[string]bool, error)
}

// resolveCandidates picks, of q's candidate names, the first that names
// one of the caller's jobs. It asks only when there is a choice to make;
// when the list cannot be read, or names none of them, q keeps its best
// guess.
func (e *Explainer) resolveCandidates(ctx context.Context, id rbac.Identity, q Question, namespaces []string) Question {
	if len(q.Candidates) < 2 {
		return q
	}
	namer, ok := e.Reader.(JobNamer)
	if !ok {
		return q
	}
	names, err := namer.JobNames(ctx, id, namespaces)
	if err != nil {
		return q
	}
	for _, c := range q.Candidates {
		if names[c] {
			q.Name = c
			return q
		}
	}
	return q
}

// workloadsGVRs are the Workload resource; metadata LISTs need a version the
// server serves (v1beta2, else v1beta1).
var workloadsGVRs = []schema.GroupVersionResource{
	{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"},
	{Group: "kueue.x-k8s.io", Version: "v1beta1", Resource: "workloads"},
}

// listJobNames lists Workload metadata (no specs, no statuses) in each
// namespace, paginated: one request per namespace for up to 500 Workloads.
func listJobNames(ctx context.Context, client metadata.Interface, namespaces []string) (map[string]bool, error) {
	names := map[string]bool{}
	served := 0 // index of the first version not known to be unserved
	for _, ns := range namespaces {
		var lastErr error
		for i := served; i < len(workloadsGVRs); i++ {
			gvr := workloadsGVRs[i]
			p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				return client.Resource(gvr).Namespace(ns).List(ctx, opts)
			})
			p.PageSize = 500
			lastErr = p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
				m, ok := obj.(metav1.Object)
				if !ok {
					return fmt.Errorf("unexpected %T in a metadata list", obj)
				}
				names[m.GetName()] = true
				for _, o := range m.GetOwnerReferences() {
					names[o.Name] = true
				}
				return nil
			})
			if lastErr == nil || !apierrors.IsNotFound(lastErr) {
				break
			}
			// A namespaced LIST answers 404 only when the version is not
			// served (a missing namespace lists empty): try the next one.
			served = i + 1
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// A namespace that fails (Forbidden, say) leaves the others to count.
	}
	return names, nil
}
