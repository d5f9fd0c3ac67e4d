package notify

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kueuebot/kueuebot/rbac"
)

// podGroup is the subscriptions of one namespace and subscriber whose Pod
// selectors are one equality on the same label key: one LIST with
// "key in (values)" reads all their Pods.
type podGroup struct {
	ns, user, key string
	values        map[string][]string // label value -> subscription IDs
	subscriber    Subscription
}

// maxInValues bounds the values of one set-based selector.
const maxInValues = 100

// pollPods reads, as each subscriber, the Pods of their admitted
// Workloads that do not all run yet, one LIST per namespace, subscriber
// and selector key (Jobs: batch.kubernetes.io/controller-uid in (...)),
// and queues those whose Pods now all run. Selectors that are not one
// equality are read one by one. The requests grow with the namespaces and
// their subscribers, not with the subscriptions.
func (n *Notifier) pollPods(ls *leadState, waiting []Subscription) {
	groups := map[string]*podGroup{}
	var single []Subscription
	for _, s := range waiting {
		sel, err := labels.Parse(s.PodSelector)
		reqs, _ := sel.Requirements()
		if err != nil || len(reqs) != 1 || reqs[0].Operator() != selection.Equals && reqs[0].Operator() != selection.DoubleEquals {
			single = append(single, s)
			continue
		}
		v := reqs[0].Values().UnsortedList()[0]
		gk := s.scope() + "\x00" + s.User + "\x00" + reqs[0].Key()
		g := groups[gk]
		if g == nil || len(g.values) >= maxInValues {
			if g != nil {
				gk += "\x00" + s.ID
			}
			g = &podGroup{ns: s.Namespace, user: s.User, key: reqs[0].Key(), values: map[string][]string{}, subscriber: s}
			groups[gk] = g
		}
		g.values[v] = append(g.values[v], s.ID)
	}
	for _, g := range groups {
		vals := make([]string, 0, len(g.values))
		for v := range g.values {
			vals = append(vals, v)
		}
		slices.Sort(vals)
		counts, err := n.countPods(ls.ctx, g.subscriber, g.key+" in ("+strings.Join(vals, ",")+")", g.key)
		if err != nil {
			n.Log.WarnContext(ls.ctx, "notification: Pods unreadable as the subscriber", slog.String("namespace", g.ns), slog.String("slackUser", g.user), slog.Any("error", err))
			continue
		}
		for v, ids := range g.values {
			for _, id := range ids {
				n.enqueueIfRunning(ls, id, counts[v])
			}
		}
	}
	for _, s := range single {
		counts, err := n.countPods(ls.ctx, s, s.PodSelector, "")
		if err == nil {
			n.enqueueIfRunning(ls, s.ID, counts[""])
		}
	}
}

// countPods lists Pods as s's subscriber and counts the running or
// succeeded ones per value of label key ("" when key is empty).
func (n *Notifier) countPods(ctx context.Context, s Subscription, selector, key string) (map[string]int, error) {
	cl, err := n.subscriber(ctx, &s)
	if err != nil {
		return nil, err
	}
	list, err := cl.Kube.CoreV1().Pods(s.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for i := range list.Items {
		p := &list.Items[i]
		if p.DeletionTimestamp == nil && (p.Status.Phase == "Running" || p.Status.Phase == "Succeeded") {
			out[p.Labels[key]]++
		}
	}
	return out, nil
}

func (n *Notifier) enqueueIfRunning(ls *leadState, id string, running int) {
	s, ok := n.get(id)
	if !ok {
		return
	}
	if w := ls.watchers[s.scope()]; w != nil {
		if wl := w.workload(&s); wl != nil && running >= PodCount(wl) && running > 0 {
			ls.queue.Add(id)
		}
	}
}

// readPods counts the job's Pods as the subscriber (one LIST by the job's
// Pod selector).
func readPods(ctx context.Context, cl *rbac.Clients, ns, selector string) (Pods, error) {
	list, err := cl.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector, Limit: 500})
	if err != nil {
		return Pods{}, err
	}
	p := Pods{Known: true}
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp != nil {
			continue
		}
		switch list.Items[i].Status.Phase {
		case "Running":
			p.Running++
		case "Succeeded":
			p.Succeeded++
		}
	}
	return p, nil
}
