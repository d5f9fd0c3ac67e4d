package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

// friendlyError is an error whose text is meant for the user.
type friendlyError struct {
	msg   string
	cause error
}

func (e *friendlyError) Error() string {
	if e.cause != nil {
		return e.msg + ": " + e.cause.Error()
	}
	return e.msg
}
func (e *friendlyError) UserMessage() string { return e.msg }
func (e *friendlyError) Unwrap() error       { return e.cause }

// snapshotFunc reads the snapshot of one target in one namespace.
type snapshotFunc func(ctx context.Context, t diagnose.Target) (*diagnose.Snapshot, error)

// diagnoseIn looks the job up in each namespace (in order) and analyzes it
// where it is found. Found in several: the user is asked to pick. Found
// nowhere: the NotFound report, which is the same whether the job does not
// exist or the caller may not see it.
func diagnoseIn(ctx context.Context, req Request, namespaces []string, truncated bool, read snapshotFunc) (diagnose.Report, error) {
	if len(namespaces) == 0 {
		return diagnose.Report{}, &friendlyError{msg: "I don't know which namespace to look in, and you can't list workloads in any namespace I know of. Ask again with `-n NAMESPACE`, or ask your platform team for access."}
	}
	var found []*diagnose.Snapshot
	var first *diagnose.Snapshot
	for _, ns := range namespaces {
		t := req.Target()
		t.Namespace = ns
		s, err := read(ctx, t)
		if err != nil {
			return diagnose.Report{}, err
		}
		if first == nil {
			first = s
		}
		if s.Job != nil || s.Workload != nil {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		r := diagnose.Analyze(first)
		if len(namespaces) > 1 {
			shown := namespaces
			if len(shown) > 5 {
				shown = append(append([]string(nil), shown[:5]...), fmt.Sprintf("and %d more", len(namespaces)-5))
			}
			r.Verdict.Headline = fmt.Sprintf("I can't find %s in your namespaces (%s).", req.Name, strings.Join(shown, ", "))
			r.Target.Namespace = ""
			r.Remedies = []diagnose.Remedy{{Code: "CheckName", Who: diagnose.WhoYou, Summary: "Check the spelling, or name the namespace: `" + req.Name + " -n NAMESPACE`."}}
		}
		if truncated {
			r.Verdict.Detail = fmt.Sprintf("I only looked in the first %d of your namespaces. Name the namespace to look elsewhere: `%s -n NAMESPACE`.", len(namespaces), req.Name)
		}
		return r, nil
	case 1:
		return diagnose.Analyze(found[0]), nil
	}
	var where []string
	for _, s := range found {
		where = append(where, s.Target.Namespace)
	}
	return diagnose.Report{}, &friendlyError{msg: fmt.Sprintf("%s exists in several of your namespaces (%s). Ask again with `-n NAMESPACE`.", req.Name, strings.Join(where, ", "))}
}

// KubeDiagnoser reads the cluster as the asking user, through
// impersonation, and diagnoses the job.
type KubeDiagnoser struct {
	// Base is the bot's own rest.Config; every read copies it and
	// impersonates the caller (rbac.ClientsFor).
	Base *rest.Config
	// Namespaces maps the caller to the namespaces to look in.
	Namespaces *rbac.NamespaceFinder
	// ClusterScoped, when set (clusterScopedReads: bot), reads the
	// caller's own ClusterQueue, flavors and cohort as the bot.
	ClusterScoped kueueclient.Interface
	// Timeout bounds each API request.
	Timeout time.Duration
	// KueueConfig, when set (kube.kueueConfig), reads Kueue's own
	// Configuration as the bot (fetch.KueueConfigMap).
	KueueConfig func(context.Context) (*diagnose.KueueConfig, error)
}

// Diagnose implements Diagnoser.
func (d *KubeDiagnoser) Diagnose(ctx context.Context, id rbac.Identity, req Request) (diagnose.Report, error) {
	clients, err := rbac.ClientsFor(d.Base, id)
	if err != nil {
		return diagnose.Report{}, err
	}
	nss, err := d.Namespaces.Find(ctx, req.Namespace, id, clients.Kube)
	if err != nil {
		if re := fetch.AsReadError(fetch.KindNamespaces, "", "", err); re != nil && ctx.Err() == nil {
			return diagnose.Report{}, re // a sick API server, said plainly
		}
		return diagnose.Report{}, err
	}
	noteNamespaces(ctx, nss.Names, nss.Source)
	f := &fetch.Fetcher{Kube: clients.Kube, Kueue: clients.Kueue, Dynamic: clients.Dynamic, ClusterScoped: d.ClusterScoped, Timeout: d.Timeout, KueueConfig: d.KueueConfig}
	r, err := diagnoseIn(ctx, req, nss.Names, nss.Truncated, f.Fetch)
	if errors.Is(err, fetch.ErrImpersonation) {
		// The bot's own RBAC is wrong: say so, without the server's text.
		return r, &friendlyError{msg: "I am not allowed to read the cluster as you: kueuebot's ClusterRole does not list your Kubernetes user or groups. Ask your platform team to regenerate kueuebot's RBAC from its config (deploy/rbac).", cause: err}
	}
	return r, err
}

// DumpDiagnoser diagnoses from a loaded dump (the chat demo, or a platform
// team replaying a cluster dump). It stands in for RBAC by looking only in
// the identity's configured namespaces.
type DumpDiagnoser struct {
	Dump *fetch.Dump
	// Now is the snapshot time; time.Now when nil.
	Now func() time.Time
}

// Diagnose implements Diagnoser.
func (d *DumpDiagnoser) Diagnose(ctx context.Context, id rbac.Identity, req Request) (diagnose.Report, error) {
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	namespaces := id.Namespaces
	if req.Namespace != "" {
		if !slices.Contains(id.Namespaces, req.Namespace) {
			// As RBAC would: a namespace the user may not read looks empty.
			t := req.Target()
			return diagnose.Analyze(&diagnose.Snapshot{Now: now(), Target: t}), nil
		}
		namespaces = []string{req.Namespace}
	}
	source := rbac.SourceConfigured
	if req.Namespace != "" {
		source = rbac.SourceExplicit
	}
	noteNamespaces(ctx, namespaces, source)
	return diagnoseIn(ctx, req, namespaces, false, func(_ context.Context, t diagnose.Target) (*diagnose.Snapshot, error) {
		return d.Dump.Snapshot(t, now())
	})
}
