package explain

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// CheckRequest asks whether a manifest that is not submitted yet would
// fit: the CLI's `kueuebot check -f job.yaml`, the bot's "Will this fit?"
// message shortcut.
type CheckRequest struct {
	// Manifest is one object as YAML or JSON (a Slack code block's text
	// or an uploaded file's bytes; ManifestFromMessage finds it in a
	// message).
	Manifest []byte
	// File names the manifest in the commands the answer gives; "" or "-"
	// (stdin, a message) become "job.yaml".
	File string
	// Namespace is where the job would be created (-n); empty means the
	// manifest's metadata.namespace, else the caller's only namespace.
	Namespace string
	// Cluster, with several clusters (Fleet), is the one cluster to check
	// in; empty means every cluster where the caller is mapped and the
	// manifest's LocalQueue exists.
	Cluster string
}

// CheckResult is the answer to a CheckRequest.
type CheckResult struct {
	// Report is what the renderers take (render.WriteCheck,
	// blocks.Check).
	Report diagnose.CheckReport
	// Namespaces are where the caller's namespace came from, for the
	// audit line.
	Namespaces rbac.Namespaces
}

// Fits is the audit line's summary: "LQ=Fit" per queue checked.
func (r CheckResult) Fits() string {
	parts := make([]string, 0, len(r.Report.Queues))
	for _, q := range r.Report.Queues {
		parts = append(parts, q.LocalQueue+"="+string(q.Fit))
	}
	return strings.Join(parts, ",")
}

// Planner is a Reader that can also judge a manifest before it is
// submitted, reading as the caller and writing nothing (KubeReader,
// ClientReader).
type Planner interface {
	// PlanInputs reads the namespace's LimitRanges, the RuntimeClasses
	// named and, when listQueues is set, the namespace's LocalQueues.
	PlanInputs(ctx context.Context, id rbac.Identity, ns string, runtimeClasses []string, listQueues bool) (fetch.PlanInputs, error)
	// PlannedSnapshot reads the queue objects a planned Workload is judged
	// against.
	PlannedSnapshot(ctx context.Context, id rbac.Identity, job *unstructured.Unstructured, wl *kueue.Workload, p *diagnose.Planned) (*diagnose.Snapshot, error)
}

// maxCheckedQueues bounds how many LocalQueues a manifest without a queue
// label is checked against.
const maxCheckedQueues = 20

// Check answers whether the manifest would be admitted now, would wait, or
// would never be admitted, reading as id and changing nothing in the
// cluster (no create, no dry run: a dry-run create needs the caller's
// create permission, runs every admission webhook, and still would not
// show the Workload, which Kueue's controller creates after admission).
//
// It builds the pod sets Kueue would build (diagnose.PlannedPodSets),
// applies the namespace's LimitRange defaults and the RuntimeClass
// overhead as Kueue does (diagnose.AdjustPlannedPodSets), then judges the
// Workload with the same quota tree as a pending one, for the LocalQueue
// the manifest names, or each LocalQueue of the namespace the caller may
// read. Errors that implement UserMessage() are for the user: a manifest
// that is not YAML, holds several documents, is not a job kind Kueue
// manages, or a namespace that cannot be settled.
func (e *Explainer) Check(ctx context.Context, id rbac.Identity, req CheckRequest) (CheckResult, error) {
	if e.Reader == nil {
		return CheckResult{}, errNoReader
	}
	p, ok := e.Reader.(Planner)
	if !ok {
		return CheckResult{}, userErr("explain.check.noCluster")
	}
	job, _, err := diagnose.ParseManifest(req.Manifest)
	if err != nil {
		var me *diagnose.ManifestError
		if errors.As(err, &me) {
			return CheckResult{}, &Error{Message: me.Message, Msg: me.Msg}
		}
		return CheckResult{}, err
	}
	res := CheckResult{}
	ns, err := e.checkNamespace(ctx, id, job, req.Namespace, &res)
	if err != nil {
		return res, err
	}
	job.SetNamespace(ns)
	file := req.File
	if file == "" || file == "-" {
		file = "job.yaml"
	}
	rep := &res.Report
	rep.Target = diagnose.TargetInfo{Kind: job.GetKind(), Namespace: ns, Name: job.GetName()}
	rep.File = req.File
	rep.Notes, rep.Gaps, rep.Queues = []string{}, []diagnose.Gap{}, []diagnose.QueueCheck{}

	podSets, err := diagnose.PlannedPodSets(job)
	if err != nil {
		var pe *diagnose.PlanError
		inner := i18n.M("explain.text", i18n.Verbatim(err.Error()))
		if errors.As(err, &pe) {
			if pe.Unsupported {
				return res, (&Error{Message: pe.Msg.String(), Msg: pe.Msg}).because(err)
			}
			inner = pe.Msg
		}
		return res, userErr("explain.check.cannotReadPods", i18n.Ref(strings.ToLower(job.GetKind()), ns, job.GetName()), inner)
	}
	lq := job.GetLabels()[diagnose.QueueNameLabel]
	rep.QueueNamed = lq != ""
	in, err := p.PlanInputs(ctx, id, ns, diagnose.RuntimeClassNames(podSets), lq == "")
	if err != nil {
		return res, err
	}
	rep.Gaps = append(rep.Gaps, in.Gaps...)
	rep.Adjustments = diagnose.AdjustPlannedPodSets(podSets, in.LimitRanges, in.RuntimeClasses)
	rep.PodSets = diagnose.SummarizePodSets(podSets)
	for _, n := range diagnose.PlanNotes(job) {
		rep.AddNote(n)
	}
	if job.GetKind() == "LeaderWorkerSet" {
		if n, ok, _ := unstructured.NestedInt64(job.Object, "spec", "replicas"); ok && n > 1 {
			rep.AddNote(i18n.M("explain.check.note.lws", i18n.Num(n)))
		}
	}

	queues := []string{lq}
	if lq == "" {
		queues = queues[:0]
		for _, q := range in.LocalQueues {
			queues = append(queues, q.Name)
		}
		switch {
		case len(queues) == 0 && len(in.LocalQueues) == 0 && hasGapKind(in.Gaps, "LocalQueue"):
			return res, userErr("explain.check.noLabelNoList", i18n.Name(diagnose.QueueNameLabel), i18n.Obj("Namespace", "", ns))
		case len(queues) == 0:
			return res, userErr("explain.check.noLabelNoQueue", i18n.Name(diagnose.QueueNameLabel), i18n.Obj("Namespace", "", ns))
		}
		note := i18n.M("explain.check.note.noLabel", i18n.Name(diagnose.QueueNameLabel), i18n.Obj("Namespace", "", ns))
		if len(queues) > maxCheckedQueues {
			note = i18n.M("explain.check.note.join", note, i18n.M("explain.check.note.firstN", i18n.Num(maxCheckedQueues), i18n.Num(len(queues))))
			queues = queues[:maxCheckedQueues]
		}
		rep.AddNote(note)
	}
	planned := &diagnose.Planned{File: file}
	for _, name := range queues {
		j := job
		if lq == "" {
			j = job.DeepCopy()
			labels := j.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels[diagnose.QueueNameLabel] = name
			j.SetLabels(labels)
		}
		wl := diagnose.PlannedWorkload(j, ns, name, clonePodSets(podSets))
		s, err := p.PlannedSnapshot(ctx, id, j, wl, planned)
		if err != nil {
			if errors.Is(err, fetch.ErrKueueNotServed) {
				return res, userErr("explain.check.noKueue").because(err)
			}
			return res, err
		}
		qc := diagnose.CheckQueue(s, rep.Adjustments)
		if lq == "" {
			summary := i18n.M("explain.check.remedy.addLabel", i18n.Verbatim(diagnose.QueueNameLabel+"="+name))
			qc.Remedies = append([]diagnose.Remedy{{Code: "AddQueueName", Who: diagnose.WhoYou,
				Command: diagnose.PlannedEditCommand(file, ns, "label", diagnose.QueueNameLabel+"="+name),
				Summary: summary.String(), SummaryMsg: summary}}, qc.Remedies...)
		}
		if qc.Fit == diagnose.FitWaits {
			qc.Estimate = e.checkEstimate(ctx, id, s, &qc)
		}
		rep.Queues = append(rep.Queues, qc)
	}
	return res, nil
}

// checkNamespace settles where the job would be created: -n, else the
// manifest's namespace, else the caller's only namespace.
func (e *Explainer) checkNamespace(ctx context.Context, id rbac.Identity, job *unstructured.Unstructured, explicit string, res *CheckResult) (string, error) {
	own := job.GetNamespace()
	if explicit != "" && own != "" && explicit != own {
		return "", userErr("explain.check.nsMismatch", i18n.Obj("Namespace", "", own), i18n.Obj("Namespace", "", explicit), i18n.Verbatim("-n"), i18n.Verbatim("metadata.namespace"))
	}
	want := explicit
	if want == "" {
		want = own
	}
	nss, err := e.Reader.Namespaces(ctx, id, want)
	if err != nil {
		return "", err
	}
	res.Namespaces = nss
	switch {
	case want != "":
		return want, nil
	case len(nss.Names) == 1:
		return nss.Names[0], nil
	case len(nss.Names) == 0:
		return "", userErr("explain.check.noNamespace", i18n.Verbatim("metadata.namespace"), i18n.Verbatim("-n NAMESPACE"))
	}
	shown := nss.Names
	if len(shown) > maxShownNamespaces {
		shown = shown[:maxShownNamespaces]
	}
	return "", userErr("explain.check.severalNamespaces", namesList(shown), i18n.Verbatim("metadata.namespace"), i18n.Verbatim("-n NAMESPACE"))
}

func clonePodSets(in []kueue.PodSet) []kueue.PodSet {
	out := make([]kueue.PodSet, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

func hasGapKind(gaps []diagnose.Gap, kind string) bool {
	for _, g := range gaps {
		if g.Kind == kind {
			return true
		}
	}
	return false
}

// ManifestFromMessage finds the manifest in a Slack message's text: the
// first code block (```...```, a language word such as "yaml" after the
// fence dropped), else the whole text when it looks like YAML (it has an
// apiVersion: line). ok is false when the message holds none.
func ManifestFromMessage(text string) (manifest []byte, ok bool) {
	if _, rest, found := strings.Cut(text, "```"); found {
		block, _, _ := strings.Cut(rest, "```")
		if first, body, nl := strings.Cut(block, "\n"); nl && !strings.Contains(first, ":") {
			block = body // a language word: ```yaml
		}
		block = unescapeSlack(block)
		return []byte(block), strings.TrimSpace(block) != ""
	}
	if strings.Contains(text, "apiVersion:") {
		return []byte(unescapeSlack(text)), true
	}
	return nil, false
}

// unescapeSlack undoes Slack's escaping of &, < and > in message text.
func unescapeSlack(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// PlanInputs implements Planner, as id.
func (k *KubeReader) PlanInputs(ctx context.Context, id rbac.Identity, ns string, runtimeClasses []string, listQueues bool) (fetch.PlanInputs, error) {
	c, err := k.reader(id)
	if err != nil {
		return fetch.PlanInputs{}, err
	}
	in, err := c.fetcher.ReadPlanInputs(ctx, ns, runtimeClasses, listQueues)
	if errors.Is(err, fetch.ErrImpersonation) {
		return in, readError(ctx, "", err)
	}
	return in, err
}

// PlannedSnapshot implements Planner, as id.
func (k *KubeReader) PlannedSnapshot(ctx context.Context, id rbac.Identity, job *unstructured.Unstructured, wl *kueue.Workload, p *diagnose.Planned) (*diagnose.Snapshot, error) {
	c, err := k.reader(id)
	if err != nil {
		return nil, err
	}
	s, err := c.fetcher.FetchPlanned(ctx, job, wl, p)
	if errors.Is(err, fetch.ErrImpersonation) {
		return nil, readError(ctx, "", err)
	}
	return s, err
}

// PlanInputs implements Planner with the Fetcher's clients.
func (c *ClientReader) PlanInputs(ctx context.Context, _ rbac.Identity, ns string, runtimeClasses []string, listQueues bool) (fetch.PlanInputs, error) {
	return c.Fetcher.ReadPlanInputs(ctx, ns, runtimeClasses, listQueues)
}

// PlannedSnapshot implements Planner with the Fetcher's clients.
func (c *ClientReader) PlannedSnapshot(ctx context.Context, _ rbac.Identity, job *unstructured.Unstructured, wl *kueue.Workload, p *diagnose.Planned) (*diagnose.Snapshot, error) {
	return c.Fetcher.FetchPlanned(ctx, job, wl, p)
}
