package fetch

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

var _ objectReader = (*liveSource)(nil)

// The live reads of objectReader: one request each, as the caller (the
// Topologies as the bot in clusterScopedReads=bot mode, as the flavors
// they belong to). A GET for one name, a LIST for several (claims: always
// a LIST). Kueue's
// Topology and MultiKueue objects are read only from a v1beta2 API: on an
// older Kueue they are not read (no request, no gap).

func (s *liveSource) listNodes(ctx context.Context, selector string) ([]corev1.Node, error) {
	list, err := do(ctx, s, func(ctx context.Context) (*corev1.NodeList, error) {
		return s.f.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: maxNodes})
	})
	if err != nil {
		return nil, err
	}
	out := make([]corev1.Node, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, *slimNode(&list.Items[i]))
	}
	return out, nil
}

// getClaims lists the namespace's claims (one LIST, so that the reader
// role needs list only) and keeps the named ones.
func (s *liveSource) getClaims(ctx context.Context, ns string, names []string) ([]corev1.PersistentVolumeClaim, error) {
	list, err := do(ctx, s, func(ctx context.Context) (*corev1.PersistentVolumeClaimList, error) {
		return s.f.Kube.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{Limit: maxPods})
	})
	if err != nil {
		return nil, err
	}
	return nonNil(pick(list.Items, func(p *corev1.PersistentVolumeClaim) string { return p.Name }, names)), nil
}

func (s *liveSource) listResourceQuotas(ctx context.Context, ns string) ([]corev1.ResourceQuota, error) {
	list, err := do(ctx, s, func(ctx context.Context) (*corev1.ResourceQuotaList, error) {
		return s.f.Kube.CoreV1().ResourceQuotas(ns).List(ctx, metav1.ListOptions{Limit: maxNodes})
	})
	if err != nil {
		return nil, err
	}
	return nonNil(list.Items), nil
}

func (s *liveSource) listLimitRanges(ctx context.Context, ns string) ([]corev1.LimitRange, error) {
	list, err := do(ctx, s, func(ctx context.Context) (*corev1.LimitRangeList, error) {
		return s.f.Kube.CoreV1().LimitRanges(ns).List(ctx, metav1.ListOptions{Limit: maxNodes})
	})
	if err != nil {
		return nil, err
	}
	return nonNil(list.Items), nil
}

func (s *liveSource) getRuntimeClasses(ctx context.Context, names []string) ([]nodev1.RuntimeClass, error) {
	if len(names) == 1 {
		rc, err := do(ctx, s, func(ctx context.Context) (*nodev1.RuntimeClass, error) {
			return s.f.Kube.NodeV1().RuntimeClasses().Get(ctx, names[0], metav1.GetOptions{})
		})
		if apierrors.IsNotFound(err) {
			return []nodev1.RuntimeClass{}, nil
		}
		if err != nil {
			return nil, err
		}
		return []nodev1.RuntimeClass{*rc}, nil
	}
	list, err := do(ctx, s, func(ctx context.Context) (*nodev1.RuntimeClassList, error) {
		return s.f.Kube.NodeV1().RuntimeClasses().List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	return nonNil(pick(list.Items, func(rc *nodev1.RuntimeClass) string { return rc.Name }, names)), nil
}

func (s *liveSource) getTopologies(ctx context.Context, names []string) ([]kueue.Topology, error) {
	if s.v1beta1() {
		return nil, nil
	}
	cs := s.clusterClient()
	if len(names) == 1 {
		t, err := do(ctx, s, func(ctx context.Context) (*kueue.Topology, error) {
			return cs.KueueV1beta2().Topologies().Get(ctx, names[0], metav1.GetOptions{})
		})
		if apierrors.IsNotFound(err) {
			return []kueue.Topology{}, nil
		}
		if err != nil {
			return nil, err
		}
		return []kueue.Topology{*t}, nil
	}
	list, err := do(ctx, s, func(ctx context.Context) (*kueue.TopologyList, error) {
		return cs.KueueV1beta2().Topologies().List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	return nonNil(pick(list.Items, func(t *kueue.Topology) string { return t.Name }, names)), nil
}

func (s *liveSource) getMultiKueueConfigs(ctx context.Context, names []string) ([]kueue.MultiKueueConfig, error) {
	if s.v1beta1() {
		return nil, nil
	}
	if len(names) == 1 {
		mc, err := do(ctx, s, func(ctx context.Context) (*kueue.MultiKueueConfig, error) {
			return s.f.Kueue.KueueV1beta2().MultiKueueConfigs().Get(ctx, names[0], metav1.GetOptions{})
		})
		if apierrors.IsNotFound(err) {
			return []kueue.MultiKueueConfig{}, nil
		}
		if err != nil {
			return nil, err
		}
		return []kueue.MultiKueueConfig{*mc}, nil
	}
	list, err := do(ctx, s, func(ctx context.Context) (*kueue.MultiKueueConfigList, error) {
		return s.f.Kueue.KueueV1beta2().MultiKueueConfigs().List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	return nonNil(pick(list.Items, func(c *kueue.MultiKueueConfig) string { return c.Name }, names)), nil
}

func (s *liveSource) listMultiKueueClusters(ctx context.Context) ([]kueue.MultiKueueCluster, error) {
	if s.v1beta1() {
		return nil, nil
	}
	list, err := do(ctx, s, func(ctx context.Context) (*kueue.MultiKueueClusterList, error) {
		return s.f.Kueue.KueueV1beta2().MultiKueueClusters().List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, err
	}
	return nonNil(list.Items), nil
}

// nonNil returns items, or an empty slice for none: a read that found
// nothing is then told from a read not made (nil).
func nonNil[T any](items []T) []T {
	if items == nil {
		return []T{}
	}
	return items
}
