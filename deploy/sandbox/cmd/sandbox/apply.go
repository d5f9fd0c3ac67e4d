package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

const fieldManager = "kueuebot-sandbox"

// cluster bundles the clients the runner needs for one identity.
type cluster struct {
	cfg    *rest.Config
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newCluster(kubeconfig string) (*cluster, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	cfg.Timeout = 30 * time.Second
	return newClusterFromConfig(cfg)
}

func newClusterFromConfig(cfg *rest.Config) (*cluster, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &cluster{cfg: cfg, kube: kube, dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))}, nil
}

// resource maps an object to its dynamic resource client, refreshing discovery once on a miss.
func (c *cluster) resource(o *unstructured.Unstructured) (dynamic.ResourceInterface, *meta.RESTMapping, error) {
	gvk := o.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil && meta.IsNoMatchError(err) {
		c.mapper.Reset()
		m, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := o.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		return c.dyn.Resource(m.Resource).Namespace(ns), m, nil
	}
	return c.dyn.Resource(m.Resource), m, nil
}

// apply server-side-applies o. If the object carries a status and statusToo is set, the status is
// applied as well through the status subresource (used for Node and AdmissionCheck status).
func (c *cluster) apply(ctx context.Context, o *unstructured.Unstructured) error {
	ri, _, err := c.resource(o)
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
	}
	status, hasStatus, _ := unstructured.NestedMap(o.Object, "status")
	obj := o.DeepCopy()
	unstructured.RemoveNestedField(obj.Object, "status")
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	force := true
	if _, err := ri.Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: fieldManager, Force: &force}); err != nil {
		return fmt.Errorf("apply %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
	}
	if hasStatus && len(status) > 0 {
		st := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(),
			"metadata": map[string]any{"name": o.GetName()},
			"status":   status,
		}}
		if o.GetNamespace() != "" {
			st.SetNamespace(o.GetNamespace())
		}
		data, err := json.Marshal(st.Object)
		if err != nil {
			return err
		}
		if _, err := ri.Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: fieldManager, Force: &force}, "status"); err != nil {
			return fmt.Errorf("apply status %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// applyAll applies objects in order, retrying transient failures (webhook not yet serving,
// CRD not yet established, namespace's default ServiceAccount not yet there) until ctx ends.
func (c *cluster) applyAll(ctx context.Context, objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		var err error
		for {
			if err = c.apply(ctx, o); err == nil {
				break
			}
			if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) && !isTransientForbidden(err) {
				return err
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
	return nil
}

// applyParallel applies independent objects (CRDs) with up to n requests in flight.
func (c *cluster) applyParallel(ctx context.Context, objs []*unstructured.Unstructured, n int) error {
	sem := make(chan struct{}, n)
	errs := make(chan error, len(objs))
	for _, o := range objs {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- c.applyAll(ctx, []*unstructured.Unstructured{o})
		}()
	}
	var all []error
	for range objs {
		if err := <-errs; err != nil {
			all = append(all, err)
		}
	}
	return errors.Join(all...)
}

func isTransientForbidden(err error) bool {
	// "namespace is being terminated" or "error looking up service account" style failures.
	return apierrors.HasStatusCause(err, "NamespaceTerminating")
}

// gvr is a shorthand for well-known resources the runner lists.
func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}
