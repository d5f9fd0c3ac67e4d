package notify

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kueuebot/kueuebot/kinds"
	"github.com/kueuebot/kueuebot/rbac"
)

// readJob reads the job as the subscriber; nil when it does not exist.
func readJob(ctx context.Context, cl *rbac.Clients, ns, kind, name string) (*unstructured.Unstructured, *kinds.Kind, error) {
	k, ok := kinds.ByKind(kind)
	if !ok {
		return nil, nil, fmt.Errorf("notify: unknown kind %q", kind)
	}
	obj, err := cl.Dynamic.Resource(k.Resource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, k, nil
	}
	if err != nil {
		return nil, k, err
	}
	return obj, k, nil
}

// jobGone reports whether the subscription's job no longer exists (a job
// of the same name with another UID is another job), read as the
// subscriber. A subscription to a Workload is gone with the Workload.
func jobGone(ctx context.Context, cl *rbac.Clients, s *Subscription) (bool, error) {
	if s.Kind == kueueWorkloadKind {
		return true, nil
	}
	obj, _, err := readJob(ctx, cl, s.Namespace, s.Kind, s.Name)
	if err != nil {
		return false, err
	}
	return obj == nil || string(obj.GetUID()) != s.JobUID, nil
}
