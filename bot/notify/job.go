package notify

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	controllerconstants "sigs.k8s.io/kueue/pkg/controller/constants"

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

// readWorkload reads the subscription's Workload as the subscriber: by
// name for a Workload, else the newest Workload labelled with the job's
// UID. nil when there is none.
func readWorkload(ctx context.Context, cl *rbac.Clients, s *Subscription) (*kueue.Workload, error) {
	wls := cl.Kueue.KueueV1beta2().Workloads(s.Namespace)
	if s.Kind == kueueWorkloadKind {
		wl, err := wls.Get(ctx, s.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return wl, err
	}
	list, err := wls.List(ctx, metav1.ListOptions{LabelSelector: controllerconstants.JobUIDLabel + "=" + s.JobUID, Limit: 20})
	if err != nil {
		return nil, err
	}
	var newest *kueue.Workload
	for i := range list.Items {
		if w := &list.Items[i]; newest == nil || newest.CreationTimestamp.Before(&w.CreationTimestamp) {
			newest = w
		}
	}
	return newest, nil
}

const kueueWorkloadKind = "Workload"
