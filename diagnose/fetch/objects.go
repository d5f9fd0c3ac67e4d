package fetch

import (
	"context"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
)

// maxNodes caps the Nodes read (and kept) for one diagnosis.
const maxNodes = 500

// multiKueueController is the controllerName of MultiKueue's
// AdmissionChecks.
const multiKueueController = "kueue.x-k8s.io/multikueue"

// objectReader reads the objects that name what blocks a job: the Nodes
// (their taints, labels and allocatable), the PersistentVolumeClaims its
// pods use, the namespace's ResourceQuotas and LimitRanges, the
// RuntimeClasses its pod sets name, the Topologies of its flavors and the
// MultiKueue objects of its checks. Each method is one request live.
type objectReader interface {
	// listNodes lists the Nodes matching selector ("" for all), at most
	// maxNodes, kept slim (slimNode).
	listNodes(ctx context.Context, selector string) ([]corev1.Node, error)
	// getClaims returns the named claims of ns that exist.
	getClaims(ctx context.Context, ns string, names []string) ([]corev1.PersistentVolumeClaim, error)
	listResourceQuotas(ctx context.Context, ns string) ([]corev1.ResourceQuota, error)
	listLimitRanges(ctx context.Context, ns string) ([]corev1.LimitRange, error)
	// getRuntimeClasses, getTopologies and getMultiKueueConfigs return the
	// named objects that exist.
	getRuntimeClasses(ctx context.Context, names []string) ([]nodev1.RuntimeClass, error)
	getTopologies(ctx context.Context, names []string) ([]kueue.Topology, error)
	getMultiKueueConfigs(ctx context.Context, names []string) ([]kueue.MultiKueueConfig, error)
	listMultiKueueClusters(ctx context.Context) ([]kueue.MultiKueueCluster, error)
}

// What each read could not check when it fails, and who can: the message
// of its Gap.
const (
	gapNodes        = "the Nodes' taints, labels and allocatable could not be checked; Nodes are cluster-scoped: the platform team can read them"
	gapClaims       = "the PersistentVolumeClaims of the pods could not be checked; whoever may read the namespace's claims (kubectl describe pvc) can"
	gapQuotas       = "the namespace's ResourceQuotas could not be checked; whoever manages the namespace can read them (kubectl describe resourcequota)"
	gapLimitRanges  = "the namespace's LimitRanges could not be checked; whoever manages the namespace can read them (kubectl describe limitrange)"
	gapRuntimeClass = "the RuntimeClass's pod overhead could not be checked; RuntimeClasses are cluster-scoped: the platform team can read them"
	gapTopology     = "the Topology's levels could not be checked; Topologies are cluster-scoped: the platform team can read them"
	gapMultiKueue   = "the MultiKueue worker clusters could not be checked; MultiKueueConfigs and MultiKueueClusters are cluster-scoped: the platform team can read them"
)

// objectGap records a failed read of one of the objects that only name
// what blocks: its message says what could not be checked and who can.
// A NotFound of a LIST is not a gap (nothing to name).
func (c *collector) objectGap(ctx context.Context, kind, name, what string, err error) error {
	if apierrors.IsNotFound(err) {
		return nil // a LIST of a kind the server does not serve: nothing to name
	}
	if err := c.gap(ctx, kind, name, err); err != nil {
		return err
	}
	g := &c.s.Gaps[len(c.s.Gaps)-1]
	if g.Reason == diagnose.GapForbidden {
		g.Message = what
	} else if g.Message != "" {
		g.Message = what + " (" + g.Message + ")"
	}
	return nil
}

// pendingObjects reads, for a Workload that has no quota reserved, what
// names the limit it meets: the namespace's LimitRanges when a container
// of its pod sets asks for no cpu or memory (a default then makes up what
// Kueue counts), the RuntimeClasses its pod sets name (their pod
// overhead), and, when Kueue cannot place it in a topology, the flavors'
// Topologies and the Nodes they select. At most 4 requests live.
func (c *collector) pendingObjects(ctx context.Context, r objectReader, wl *kueue.Workload) error {
	all := c.src.exhaustive()
	ns := c.s.Target.Namespace
	if all || asksNothingSomewhere(wl) {
		lrs, err := r.listLimitRanges(ctx, ns)
		if err != nil {
			if err := c.objectGap(ctx, "LimitRange", ns, gapLimitRanges, err); err != nil {
				return err
			}
		}
		c.s.LimitRanges = lrs
	}
	if names := runtimeClassNames(wl); len(names) > 0 {
		rcs, err := r.getRuntimeClasses(ctx, names)
		if err != nil {
			if err := c.objectGap(ctx, "RuntimeClass", strings.Join(names, ","), gapRuntimeClass, err); err != nil {
				return err
			}
		} else {
			c.s.RuntimeClasses = rcs
			if !all {
				c.missing("RuntimeClass", names, names2(rcs, func(rc *nodev1.RuntimeClass) string { return rc.Name }))
			}
		}
	}
	var topo []string
	var tasFlavor *kueue.ResourceFlavor
	for i := range c.s.ResourceFlavors {
		rf := &c.s.ResourceFlavors[i]
		if rf.Spec.TopologyName != nil && *rf.Spec.TopologyName != "" && !slices.Contains(topo, string(*rf.Spec.TopologyName)) {
			topo = append(topo, string(*rf.Spec.TopologyName))
			if tasFlavor == nil {
				tasFlavor = rf
			}
		}
	}
	if len(topo) == 0 || (!all && !topologyRefused(wl)) {
		return nil
	}
	// clusterScopedReads=bot: the Topologies of the caller's own flavors
	// are read as the flavors were (the source already switched).
	tops, err := r.getTopologies(ctx, topo)
	if err != nil {
		if err := c.objectGap(ctx, "Topology", strings.Join(topo, ","), gapTopology, err); err != nil {
			return err
		}
	} else {
		c.s.Topologies = tops
		if !all {
			c.missing("Topology", topo, names2(tops, func(t *kueue.Topology) string { return t.Name }))
		}
	}
	if !topologyRefused(wl) {
		return nil // Nodes belong to no job: read only when they name what blocks, from files too
	}
	sel := ""
	if len(topo) == 1 && tasFlavor != nil {
		sel = labels.SelectorFromSet(tasFlavor.Spec.NodeLabels).String()
	}
	return c.nodes(ctx, r, sel)
}

// nodes reads the Nodes matching sel as the caller.
func (c *collector) nodes(ctx context.Context, r objectReader, sel string) error {
	nodes, err := r.listNodes(ctx, sel)
	if err != nil {
		name := sel
		if name == "" {
			name = "all"
		}
		return c.objectGap(ctx, "Node", name, gapNodes, err)
	}
	c.s.Nodes = nodes
	return nil
}

// admittedObjects reads, for an admitted job whose Pods and events are in
// the Snapshot, what names the object that keeps them from running: the
// namespace's ResourceQuotas and LimitRanges when the job controller
// reports that the API server refused its pods (FailedCreate), the claims
// the pods use when a pod is not scheduled, and the Nodes (those of the
// assigned flavor's nodeLabels) when kube-scheduler refuses a pod for a
// taint or a node selector. At most 4 requests live.
func (c *collector) admittedObjects(ctx context.Context, r objectReader, wl *kueue.Workload) error {
	all := c.src.exhaustive()
	ns := c.s.Target.Namespace
	refused, scheduling := false, false
	for i := range c.s.Events {
		e := &c.s.Events[i]
		switch {
		case e.Reason == "FailedCreate":
			refused = true
		case e.Reason == "FailedScheduling" && nodeRefusal(e.Message):
			scheduling = true
		}
	}
	for i := range c.s.Pods {
		if cond := podCondition(&c.s.Pods[i], corev1.PodScheduled); cond != nil && cond.Status == corev1.ConditionFalse && nodeRefusal(cond.Message) {
			scheduling = true
		}
	}
	if all || refused {
		rqs, err := r.listResourceQuotas(ctx, ns)
		if err != nil {
			if err := c.objectGap(ctx, "ResourceQuota", ns, gapQuotas, err); err != nil {
				return err
			}
		}
		c.s.ResourceQuotas = rqs
		if c.s.LimitRanges == nil {
			lrs, err := r.listLimitRanges(ctx, ns)
			if err != nil {
				if err := c.objectGap(ctx, "LimitRange", ns, gapLimitRanges, err); err != nil {
					return err
				}
			}
			c.s.LimitRanges = lrs
		}
	}
	if claims := unscheduledClaims(c.s.Pods, all); len(claims) > 0 {
		pvcs, err := r.getClaims(ctx, ns, claims)
		if err != nil {
			if err := c.objectGap(ctx, "PersistentVolumeClaim", strings.Join(claims, ","), gapClaims, err); err != nil {
				return err
			}
		} else {
			c.s.PersistentVolumeClaims = pvcs
		}
	}
	if scheduling && c.s.Nodes == nil { // from files too: Nodes belong to no job
		return c.nodes(ctx, r, admittedNodeSelector(wl, c.s.ResourceFlavors))
	}
	return nil
}

// multiKueue reads the MultiKueueConfigs of the ClusterQueue's MultiKueue
// checks and the MultiKueueClusters (one LIST, kept: those the configs
// list, or those the checks' messages name when the configs could not be
// read). 2 requests live; none without a MultiKueue check.
func (c *collector) multiKueue(ctx context.Context, r objectReader) error {
	var configs []string
	for i := range c.s.AdmissionChecks {
		ac := &c.s.AdmissionChecks[i]
		if ac.Spec.ControllerName == multiKueueController && ac.Spec.Parameters != nil && ac.Spec.Parameters.Kind == "MultiKueueConfig" && !slices.Contains(configs, ac.Spec.Parameters.Name) {
			configs = append(configs, ac.Spec.Parameters.Name)
		}
	}
	if len(configs) == 0 {
		return nil
	}
	mkcs, err := r.getMultiKueueConfigs(ctx, configs)
	if err != nil {
		if err := c.objectGap(ctx, "MultiKueueConfig", strings.Join(configs, ","), gapMultiKueue, err); err != nil {
			return err
		}
	} else {
		c.s.MultiKueueConfigs = mkcs
	}
	want := map[string]bool{}
	for _, cfg := range mkcs {
		for _, n := range cfg.Spec.Clusters {
			want[n] = true
		}
	}
	for i := range c.s.AdmissionChecks {
		if cond := apimeta.FindStatusCondition(c.s.AdmissionChecks[i].Status.Conditions, kueue.AdmissionCheckActive); cond != nil {
			for _, n := range diagnose.InactiveClusters(cond.Message) {
				want[n] = true
			}
		}
	}
	clusters, err := r.listMultiKueueClusters(ctx)
	if err != nil {
		return c.objectGap(ctx, "MultiKueueCluster", "", gapMultiKueue, err)
	}
	var kept []kueue.MultiKueueCluster
	for _, mc := range clusters {
		if want[mc.Name] {
			kept = append(kept, mc)
		}
	}
	c.s.MultiKueueClusters = kept
	return nil
}

// nodeRefusal reports whether kube-scheduler's message refuses nodes for
// a taint or a node selector/affinity: what the Nodes name.
func nodeRefusal(msg string) bool {
	return strings.Contains(msg, "untolerated taint") || strings.Contains(msg, "node affinity/selector") || strings.Contains(msg, "node(s) didn't match")
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// unscheduledClaims lists, once each and sorted, the claims the pods use
// (volumes and generic ephemeral volumes), of the pods not scheduled
// (all of them when all).
func unscheduledClaims(pods []corev1.Pod, all bool) []string {
	var out []string
	for i := range pods {
		p := &pods[i]
		if !all && (p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending) {
			continue
		}
		out = diagnose.AppendClaimNames(out, p)
	}
	slices.Sort(out)
	return out
}

// admittedNodeSelector is the nodeLabels of the one flavor the Workload's
// admission assigns, as a label selector; "" (all Nodes) when it assigns
// several or the flavor has no nodeLabels.
func admittedNodeSelector(wl *kueue.Workload, flavors []kueue.ResourceFlavor) string {
	if wl == nil || wl.Status.Admission == nil {
		return ""
	}
	var names []string
	for _, psa := range wl.Status.Admission.PodSetAssignments {
		for _, f := range psa.Flavors {
			if !slices.Contains(names, string(f)) {
				names = append(names, string(f))
			}
		}
	}
	if len(names) != 1 {
		return ""
	}
	for _, rf := range flavors {
		if rf.Name == names[0] {
			return labels.SelectorFromSet(rf.Spec.NodeLabels).String()
		}
	}
	return ""
}

// asksNothingSomewhere reports whether a container of the Workload's pod
// sets asks for no cpu or no memory, limits included: a LimitRange default
// may then make up what Kueue counts.
func asksNothingSomewhere(wl *kueue.Workload) bool {
	if wl == nil {
		return false
	}
	for _, ps := range wl.Spec.PodSets {
		spec := &ps.Template.Spec
		if spec.Resources != nil {
			continue
		}
		for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
			for _, ctr := range cs {
				for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
					_, req := ctr.Resources.Requests[r]
					_, lim := ctr.Resources.Limits[r]
					if !req && !lim {
						return true
					}
				}
			}
		}
	}
	return false
}

// runtimeClassNames lists the RuntimeClasses the Workload's pod sets name.
func runtimeClassNames(wl *kueue.Workload) []string {
	if wl == nil {
		return nil
	}
	var out []string
	for _, ps := range wl.Spec.PodSets {
		if n := ps.Template.Spec.RuntimeClassName; n != nil && *n != "" && !slices.Contains(out, *n) {
			out = append(out, *n)
		}
	}
	return out
}

// topologyRefused reports whether Kueue's message says it cannot place the
// Workload in its topology.
func topologyRefused(wl *kueue.Workload) bool {
	if wl == nil {
		return false
	}
	cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved)
	return cond != nil && cond.Status == metav1.ConditionFalse && strings.Contains(cond.Message, `topology "`)
}

// slimNode keeps of a Node what the diagnosis reads: name, labels, taints,
// unschedulable, the Ready condition and allocatable.
func slimNode(n *corev1.Node) *corev1.Node {
	out := &corev1.Node{TypeMeta: n.TypeMeta}
	out.Name, out.Labels, out.UID, out.ResourceVersion = n.Name, n.Labels, n.UID, n.ResourceVersion
	out.Spec.Taints, out.Spec.Unschedulable = n.Spec.Taints, n.Spec.Unschedulable
	out.Status.Allocatable = n.Status.Allocatable
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status, Reason: c.Reason}}
		}
	}
	return out
}
