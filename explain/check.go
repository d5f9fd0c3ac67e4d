package explain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
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
		return CheckResult{}, &Error{Message: "Checking a manifest needs a cluster to compare it with: this kueuebot reads a dump."}
	}
	job, _, err := diagnose.ParseManifest(req.Manifest)
	if err != nil {
		var me *diagnose.ManifestError
		if errors.As(err, &me) {
			return CheckResult{}, &Error{Message: me.Message}
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
		if errors.Is(err, diagnose.ErrPlanUnsupported) {
			return res, &Error{Message: strings.TrimPrefix(err.Error(), diagnose.ErrPlanUnsupported.Error()+": "), Cause: err}
		}
		return res, &Error{Message: fmt.Sprintf("I cannot read the pods of %s/%s: %v.", strings.ToLower(job.GetKind()), job.GetName(), err)}
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
			rep.Notes = append(rep.Notes, fmt.Sprintf("Kueue creates one Workload per group of the LeaderWorkerSet: %d Workloads like the one checked here, each admitted on its own.", n))
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
			return res, &Error{Message: fmt.Sprintf("The manifest has no %s label, and you may not list the LocalQueues of namespace %s to try them. Add the label naming the LocalQueue to use (ask your platform team which), then check again.", diagnose.QueueNameLabel, ns)}
		case len(queues) == 0:
			return res, &Error{Message: fmt.Sprintf("The manifest has no %s label, and namespace %s has no LocalQueue: Kueue would not manage the job, and there is no queue to try. Ask your platform team which LocalQueue to use.", diagnose.QueueNameLabel, ns)}
		}
		note := fmt.Sprintf("The manifest has no %s label, so Kueue would not manage it: it would run outside any quota, or not at all if it is created suspended. Below, each LocalQueue of %s you may read; add the label for the one to use (the command is with each answer).", diagnose.QueueNameLabel, ns)
		if len(queues) > maxCheckedQueues {
			note += fmt.Sprintf(" Only the first %d of %d LocalQueues are checked.", maxCheckedQueues, len(queues))
			queues = queues[:maxCheckedQueues]
		}
		rep.Notes = append(rep.Notes, note)
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
				return res, &Error{Message: "This cluster does not serve Kueue's API: Kueue is not installed there, so nothing would queue the job.", Cause: err}
			}
			return res, err
		}
		qc := diagnose.CheckQueue(s, rep.Adjustments)
		if lq == "" {
			qc.Remedies = append([]diagnose.Remedy{{Code: "AddQueueName", Who: diagnose.WhoYou,
				Command: diagnose.PlannedEditCommand(file, ns, "label", diagnose.QueueNameLabel+"="+name),
				Summary: fmt.Sprintf("Add the label %s=%s to submit it to this queue.", diagnose.QueueNameLabel, name)}}, qc.Remedies...)
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
		return "", &Error{Message: fmt.Sprintf("The manifest says namespace %s but you asked for %s: drop -n, or change metadata.namespace (kubectl refuses the same mismatch).", own, explicit)}
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
		return "", &Error{Message: "The manifest names no namespace and I don't know yours: set metadata.namespace in the manifest (or -n NAMESPACE), or ask your platform team for access."}
	}
	shown := nss.Names
	if len(shown) > maxShownNamespaces {
		shown = shown[:maxShownNamespaces]
	}
	return "", &Error{Message: fmt.Sprintf("The manifest names no namespace and you have several (%s): set metadata.namespace in the manifest, or -n NAMESPACE.", strings.Join(shown, ", "))}
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
