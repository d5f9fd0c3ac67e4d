package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

// NamespaceSource says where a caller's namespaces came from.
type NamespaceSource string

// Namespace sources, in order of precedence.
const (
	// SourceExplicit: the question named the namespace.
	SourceExplicit NamespaceSource = "explicit"
	// SourceConfigured: the identity's configured default namespaces.
	SourceConfigured NamespaceSource = "configured"
	// SourceDiscovered: namespaces holding a LocalQueue where the caller
	// may list Workloads, by SelfSubjectAccessReview made as the caller.
	SourceDiscovered NamespaceSource = "discovered"
)

// Namespaces is the outcome of namespace mapping.
type Namespaces struct {
	// Names are the namespaces, in preference order (sorted when
	// discovered). Empty when the caller may list Workloads nowhere.
	Names []string
	// Source says where Names came from.
	Source NamespaceSource
	// Truncated is true when discovery stopped at the configured maximum.
	Truncated bool
}

// NamespaceFinder maps a caller to the namespaces a question is about.
type NamespaceFinder struct {
	// Bot is a Kueue clientset with the bot's own identity, used only to
	// list LocalQueues to learn candidate namespace names. A name is
	// returned only after an access review as the caller allows it.
	Bot kueueclient.Interface
	// Max caps the namespaces returned (kube.maxNamespaces).
	Max int
	// Concurrency caps concurrent access reviews (kube.discoveryConcurrency).
	Concurrency int
	// MaxChecks caps the access reviews made for one discovery; 0 means
	// 20 x Max. Past it, the result is marked Truncated.
	MaxChecks int
}

// Find returns the namespaces for a question: the explicit namespace if
// the question named one, else the identity's configured namespaces, else
// discovery. caller must impersonate id (use Clients.Kube from ClientsFor).
// Errors never name a candidate namespace the caller was not shown.
func (f *NamespaceFinder) Find(ctx context.Context, explicit string, id Identity, caller kubernetes.Interface) (Namespaces, error) {
	if explicit != "" {
		if errs := validation.IsDNS1123Label(explicit); len(errs) > 0 {
			return Namespaces{}, fmt.Errorf("rbac: %q is not a valid namespace name", explicit)
		}
		return Namespaces{Names: []string{explicit}, Source: SourceExplicit}, nil
	}
	if err := id.Validate(); err != nil {
		return Namespaces{}, err
	}
	limit := max(f.Max, 1)
	if len(id.Namespaces) > 0 {
		names := slices.Clone(id.Namespaces)
		trunc := len(names) > limit
		if trunc {
			names = names[:limit]
		}
		return Namespaces{Names: names, Source: SourceConfigured, Truncated: trunc}, nil
	}
	return f.discover(ctx, caller, limit)
}

func (f *NamespaceFinder) discover(ctx context.Context, caller kubernetes.Interface, limit int) (Namespaces, error) {
	if f.Bot == nil || caller == nil {
		return Namespaces{}, errors.New("rbac: namespace discovery needs the bot's Kueue client and the caller's client")
	}
	candidates, err := f.candidates(ctx)
	if err != nil {
		return Namespaces{}, err
	}
	out := Namespaces{Names: []string{}, Source: SourceDiscovered}
	// One review first: a caller who may list Workloads in every namespace
	// needs no per-namespace review.
	all, err := canListWorkloads(ctx, caller, metav1.NamespaceAll)
	if err != nil {
		return Namespaces{}, err
	}
	if all {
		out.Names = candidates[:min(limit, len(candidates))]
		out.Truncated = len(candidates) > limit
		return out, nil
	}
	checks := f.MaxChecks
	if checks <= 0 {
		checks = 20 * limit
	}
	if len(candidates) > checks {
		candidates = candidates[:checks]
		out.Truncated = true
	}
	conc := max(f.Concurrency, 1)
	for start := 0; start < len(candidates); start += conc {
		batch := candidates[start:min(start+conc, len(candidates))]
		allowed := make([]bool, len(batch))
		errs := make([]error, len(batch))
		var wg sync.WaitGroup
		for i, ns := range batch {
			wg.Go(func() { allowed[i], errs[i] = canListWorkloads(ctx, caller, ns) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return Namespaces{}, err
			}
		}
		for i, ns := range batch {
			if !allowed[i] {
				continue
			}
			if len(out.Names) == limit {
				out.Truncated = true
				return out, nil
			}
			out.Names = append(out.Names, ns)
		}
	}
	return out, nil
}

// candidates lists the namespaces that hold a LocalQueue, sorted, using the
// bot's identity. Only names are kept.
func (f *NamespaceFinder) candidates(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := f.Bot.KueueV1beta2().LocalQueues(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("rbac: listing LocalQueues with the bot's identity: %w", err)
		}
		for _, lq := range list.Items {
			seen[lq.Namespace] = true
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	names := make([]string, 0, len(seen))
	for ns := range seen {
		names = append(names, ns)
	}
	slices.Sort(names)
	return names, nil
}

// canListWorkloads asks the API server, as the caller, whether the caller
// may list Workloads in ns. The error does not name ns.
func canListWorkloads(ctx context.Context, caller kubernetes.Interface, ns string) (bool, error) {
	review := &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns,
				Verb:      "list",
				Group:     "kueue.x-k8s.io",
				Resource:  "workloads",
			},
		},
	}
	res, err := caller.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, fmt.Errorf("rbac: namespace discovery: %w", ctxErr)
		}
		// The API server's message may quote namespace names: keep only
		// the status reason and code.
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			st := status.Status()
			return false, fmt.Errorf("rbac: access review as the caller failed during namespace discovery: %s (HTTP %d)", st.Reason, st.Code)
		}
		msg := err.Error()
		if ns != "" {
			msg = strings.ReplaceAll(msg, ns, "<namespace>")
		}
		return false, errors.New("rbac: access review as the caller failed during namespace discovery: " + msg)
	}
	return res.Status.Allowed && !res.Status.Denied, nil
}
