package rbac

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
)

func localQueues(namespaces ...string) []runtime.Object {
	var objs []runtime.Object
	for i, ns := range namespaces {
		objs = append(objs, &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("lq-%d", i)}})
	}
	return objs
}

// reviewer is a caller clientset whose SelfSubjectAccessReviews allow
// listing Workloads in the given namespaces ("" = cluster-wide).
type reviewer struct {
	mu      sync.Mutex
	reviews []string // namespaces reviewed, in order received
}

func (rv *reviewer) clientset(t *testing.T, allowed []string, fail error) *kubefake.Clientset {
	cs := kubefake.NewClientset()
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ssar := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		ra := ssar.Spec.ResourceAttributes
		if ra == nil || ra.Verb != "list" || ra.Group != "kueue.x-k8s.io" || ra.Resource != "workloads" {
			t.Errorf("unexpected review %+v", ra)
		}
		rv.mu.Lock()
		rv.reviews = append(rv.reviews, ra.Namespace)
		rv.mu.Unlock()
		if fail != nil {
			return true, nil, fail
		}
		out := ssar.DeepCopy()
		for _, ns := range allowed {
			if ns == ra.Namespace {
				out.Status.Allowed = true
			}
		}
		return true, out, nil
	})
	return cs
}

func TestFindNamespaces(t *testing.T) {
	alice := Identity{User: "alice", Extra: map[string][]string{ExtraSlackUserID: {"U0000ALICE"}}}
	withNS := alice.clone()
	withNS.Namespaces = []string{"team-b", "team-a", "ml"}
	candidates := []string{"team-c", "team-a", "team-b", "team-a", "secret-project", "ml"}

	tests := []struct {
		name        string
		explicit    string
		id          Identity
		allowed     []string
		max, checks int
		want        Namespaces
		wantReviews []string
	}{
		{
			name: "explicit wins", explicit: "team-z", id: withNS,
			want: Namespaces{Names: []string{"team-z"}, Source: SourceExplicit},
		},
		{
			name: "configured next, in order", id: withNS, max: 10,
			want: Namespaces{Names: []string{"team-b", "team-a", "ml"}, Source: SourceConfigured},
		},
		{
			name: "configured, capped", id: withNS, max: 2,
			want: Namespaces{Names: []string{"team-b", "team-a"}, Source: SourceConfigured, Truncated: true},
		},
		{
			name: "discovered: none", id: alice, max: 10,
			want:        Namespaces{Names: []string{}, Source: SourceDiscovered},
			wantReviews: []string{"", "ml", "secret-project", "team-a", "team-b", "team-c"},
		},
		{
			name: "discovered: one", id: alice, allowed: []string{"team-b"}, max: 10,
			want:        Namespaces{Names: []string{"team-b"}, Source: SourceDiscovered},
			wantReviews: []string{"", "ml", "secret-project", "team-a", "team-b", "team-c"},
		},
		{
			name: "discovered: several, sorted; allowed namespaces without a LocalQueue are not candidates", id: alice,
			allowed: []string{"team-c", "ml", "team-a", "no-queue-here"}, max: 10,
			want:        Namespaces{Names: []string{"ml", "team-a", "team-c"}, Source: SourceDiscovered},
			wantReviews: []string{"", "ml", "secret-project", "team-a", "team-b", "team-c"},
		},
		{
			name: "discovered: cluster-wide reader needs one review", id: alice, allowed: []string{""}, max: 3,
			want:        Namespaces{Names: []string{"ml", "secret-project", "team-a"}, Source: SourceDiscovered, Truncated: true},
			wantReviews: []string{""},
		},
		{
			name: "discovered: stops at max", id: alice, allowed: []string{"ml", "team-a", "team-b"}, max: 1,
			want: Namespaces{Names: []string{"ml"}, Source: SourceDiscovered, Truncated: true},
			// batches of 2: ml, secret-project -> one found; team-a, team-b -> over max.
			wantReviews: []string{"", "ml", "secret-project", "team-a", "team-b"},
		},
		{
			name: "discovered: bounded checks", id: alice, allowed: []string{"team-c"}, max: 10, checks: 3,
			want:        Namespaces{Names: []string{}, Source: SourceDiscovered, Truncated: true},
			wantReviews: []string{"", "ml", "secret-project", "team-a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rv := &reviewer{}
			bot := kueuefake.NewClientset(localQueues(candidates...)...)
			f := &NamespaceFinder{Bot: bot, Max: tt.max, Concurrency: 2, MaxChecks: tt.checks}
			got, err := f.Find(t.Context(), tt.explicit, tt.id, rv.clientset(t, tt.allowed, nil))
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
			// Reviews within a batch run concurrently: compare as sets.
			if diff := cmp.Diff(tt.wantReviews, rv.reviews, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("reviews (-want +got):\n%s", diff)
			}
			if tt.want.Source != SourceDiscovered && len(bot.Actions()) > 0 {
				t.Errorf("bot client used without discovery: %v", bot.Actions())
			}
		})
	}
}

func TestFindNamespacesErrors(t *testing.T) {
	alice := Identity{User: "alice"}
	gr := schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}
	tests := []struct {
		name      string
		explicit  string
		id        Identity
		botErr    error
		reviewErr error
		wantIn    string
	}{
		{name: "invalid explicit namespace", explicit: "Team_A", id: alice, wantIn: "not a valid namespace"},
		{name: "empty identity", id: Identity{}, wantIn: "empty identity"},
		{name: "bot may not list LocalQueues", id: alice, botErr: apierrors.NewForbidden(schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "localqueues"}, "", errors.New("no")), wantIn: "bot's identity"},
		{
			name: "review failure does not leak candidate names", id: alice,
			reviewErr: apierrors.NewInternalError(errors.New("webhook failed for namespace secret-project")),
			wantIn:    "namespace discovery",
		},
		{name: "review forbidden", id: alice, reviewErr: apierrors.NewForbidden(gr, "", errors.New("no")), wantIn: "access review"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bot := kueuefake.NewClientset(localQueues("secret-project")...)
			if tt.botErr != nil {
				bot.PrependReactor("list", "localqueues", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tt.botErr })
			}
			f := &NamespaceFinder{Bot: bot, Max: 5, Concurrency: 1}
			got, err := f.Find(t.Context(), tt.explicit, tt.id, (&reviewer{}).clientset(t, nil, tt.reviewErr))
			if err == nil {
				t.Fatalf("Find: got %+v, want error", got)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q lacks %q", err, tt.wantIn)
			}
			if strings.Contains(err.Error(), "secret-project") {
				t.Errorf("error leaks a candidate namespace: %q", err)
			}
		})
	}
}
