package fetch

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/labels"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

var _ objectReader = (*storeSource)(nil)

// The store's reads of objectReader: what the dumps hold, nil when they
// hold none of the kind (a dump that lacks Nodes says nothing about them,
// so no gap either).

func (s *storeSource) listNodes(_ context.Context, selector string) ([]corev1.Node, error) {
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, nil
	}
	var out []corev1.Node
	for _, n := range all[corev1.Node](s.st, gkNode) {
		if sel.Matches(labels.Set(n.Labels)) && len(out) < maxNodes {
			out = append(out, *own(s, n))
		}
	}
	return out, nil
}

func (s *storeSource) getClaims(_ context.Context, ns string, names []string) ([]corev1.PersistentVolumeClaim, error) {
	var out []corev1.PersistentVolumeClaim
	for _, n := range names {
		if p := get[corev1.PersistentVolumeClaim](s.st, gkClaim, ns, n); p != nil {
			out = append(out, *own(s, p))
		}
	}
	return out, nil
}

func (s *storeSource) listResourceQuotas(_ context.Context, ns string) ([]corev1.ResourceQuota, error) {
	var out []corev1.ResourceQuota
	for _, q := range inNamespace[corev1.ResourceQuota](s.st, gkResourceQuota, ns) {
		out = append(out, *own(s, q))
	}
	return out, nil
}

func (s *storeSource) listLimitRanges(_ context.Context, ns string) ([]corev1.LimitRange, error) {
	var out []corev1.LimitRange
	for _, l := range inNamespace[corev1.LimitRange](s.st, gkLimitRange, ns) {
		out = append(out, *own(s, l))
	}
	return out, nil
}

func (s *storeSource) getRuntimeClasses(_ context.Context, names []string) ([]nodev1.RuntimeClass, error) {
	return pickNamed[nodev1.RuntimeClass](s, gkRuntimeClass, names), nil
}

func (s *storeSource) getTopologies(_ context.Context, names []string) ([]kueue.Topology, error) {
	return pickNamed[kueue.Topology](s, gkTopology, names), nil
}

func (s *storeSource) getMultiKueueConfigs(_ context.Context, names []string) ([]kueue.MultiKueueConfig, error) {
	return pickNamed[kueue.MultiKueueConfig](s, gkMultiKueueConfig, names), nil
}

func (s *storeSource) listMultiKueueClusters(context.Context) ([]kueue.MultiKueueCluster, error) {
	var out []kueue.MultiKueueCluster
	for _, c := range all[kueue.MultiKueueCluster](s.st, gkMultiKueueCluster) {
		out = append(out, *own(s, c))
	}
	return out, nil
}
