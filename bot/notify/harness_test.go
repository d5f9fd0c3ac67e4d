package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"
	controllerconstants "sigs.k8s.io/kueue/pkg/controller/constants"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/kinds"
	"github.com/kueuebot/kueuebot/rbac"
)

const botNS = "kueuebot"

// testWriter logs through t.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// fakeResolver maps Slack users to identities; a refused user gets a
// *rbac.RefusedError, as the real resolver returns.
type fakeResolver struct {
	mu      sync.Mutex
	refused map[string]bool
}

func (r *fakeResolver) Resolve(_ context.Context, u rbac.SlackUser) (rbac.Identity, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refused[u.ID] {
		return rbac.Identity{}, &rbac.RefusedError{Reason: rbac.ReasonUnmapped, Message: "You are not mapped to a Kubernetes identity.", SlackUserID: u.ID}
	}
	return rbac.Identity{User: strings.ToLower(u.ID) + "@example.com", Extra: map[string][]string{rbac.ExtraSlackUserID: {u.ID}}}, nil
}

func (r *fakeResolver) refuse(user string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refused[user] = true
}

// harness is a cluster of fakes: the bot's own clientset (the store), one
// object tracker for Workloads that every subscriber's clients read
// (each through its own clientset, so that one can be denied), Jobs and
// Pods, and the fake Slack on loopback.
type harness struct {
	t        *testing.T
	fs       *slackfake.Server
	bot      *kubefake.Clientset
	kube     *kubefake.Clientset
	dyn      *dynamicfake.FakeDynamicClient
	tracker  k8stesting.ObjectTracker
	kueue    *kueuefake.Clientset // the admin's view, to change Workloads
	resolver *fakeResolver
	clock    *clocktesting.FakeClock
	n        *Notifier

	mu     sync.Mutex
	denied map[string]bool // Kubernetes users whose reads are Forbidden
	reads  map[string]int  // Workload reads (get, list, watch) per Kubernetes user
	podN   int
	// noWatch makes access reviews of watch deny.
	noWatch bool
}

func newHarness(t *testing.T, maxPerUser int) *harness {
	t.Helper()
	h := &harness{
		t: t, fs: slackfake.New(t), bot: kubefake.NewClientset(), kube: kubefake.NewClientset(),
		resolver: &fakeResolver{refused: map[string]bool{}},
		clock:    clocktesting.NewFakeClock(time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)),
		denied:   map[string]bool{}, reads: map[string]int{},
	}
	h.kueue = kueuefake.NewSimpleClientset()
	h.tracker = h.kueue.Tracker()
	scheme := runtime.NewScheme()
	h.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		{Group: "batch", Version: "v1", Resource: "jobs"}: "JobList",
	})
	h.kube.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		rev := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
		h.mu.Lock()
		rev.Status.Allowed = !h.noWatch || rev.Spec.ResourceAttributes.Verb != "watch"
		h.mu.Unlock()
		return true, rev, nil
	})
	api := slack.New("xoxb-test", slack.OptionAPIURL(h.fs.APIURL()))
	h.n = New(Notifier{
		Store: &Store{Client: h.bot, Namespace: botNS}, Slack: api, Resolve: h.resolver, Clients: h.clients,
		Holder: "pod-a", MaxPerUser: maxPerUser, ExpireAfter: 24 * time.Hour, Clock: h.clock, Workers: 2, PodPoll: 10 * time.Second,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return h
}

// clients are the subscriber's: the shared Workloads, denied when the
// harness denies the user.
func (h *harness) clients(id rbac.Identity) (*rbac.Clients, error) {
	user := id.User
	deny := func(a k8stesting.Action) (bool, runtime.Object, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.reads[user]++
		if h.denied[user] {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "workloads"}, "", nil)
		}
		return false, nil, nil
	}
	cs := kueuefake.NewSimpleClientset()
	cs.ReactionChain, cs.WatchReactionChain = nil, nil
	cs.AddReactor("*", "*", deny)
	cs.AddReactor("*", "*", k8stesting.ObjectReaction(h.tracker))
	cs.AddWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		if _, _, err := deny(a); err != nil {
			return true, nil, err
		}
		w, err := h.tracker.Watch(a.GetResource(), a.GetNamespace())
		return true, w, err
	})
	return &rbac.Clients{Identity: id, Kueue: cs, Kube: h.kube, Dynamic: h.dyn}, nil
}

func (h *harness) deny(user string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.denied[user] = true
}

// lead runs the notifier's Lead until the test ends.
func (h *harness) lead() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.n.Lead(ctx); close(done) }()
	h.t.Cleanup(func() { cancel(); <-done })
	// Wait until it leads (the store is loaded).
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		h.n.mu.Lock()
		ok := h.n.leading != nil
		h.n.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatal("the notifier did not start leading")
		}
	}
}

// job creates a batch Job and its pending Workload.
func (h *harness) job(ns, name string) *kueue.Workload {
	h.t.Helper()
	uid := types.UID("uid-" + name)
	j := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": name, "namespace": ns, "uid": string(uid)}}}
	k, _ := kinds.ByKind("Job")
	if _, err := h.dyn.Resource(k.Resource).Namespace(ns).Create(context.Background(), j, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	wl := &kueue.Workload{
		ObjectMeta: metav1.ObjectMeta{Name: "job-" + name + "-1a2b3", Namespace: ns, CreationTimestamp: metav1.NewTime(h.clock.Now()),
			Labels:          map[string]string{controllerconstants.JobUIDLabel: string(uid)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: name, UID: uid}}},
		Spec: kueue.WorkloadSpec{PodSets: []kueue.PodSet{{Name: "main", Count: 2}}},
		Status: kueue.WorkloadStatus{Conditions: []metav1.Condition{
			{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionFalse, Reason: "Pending", Message: "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu", LastTransitionTime: metav1.NewTime(h.clock.Now().Add(-time.Hour))},
		}},
	}
	if _, err := h.kueue.KueueV1beta2().Workloads(ns).Create(context.Background(), wl, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	return wl
}

// set changes a Workload's conditions (the admin's write, as Kueue's).
func (h *harness) set(ns, name string, change func(wl *kueue.Workload)) {
	h.t.Helper()
	wls := h.kueue.KueueV1beta2().Workloads(ns)
	wl, err := wls.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	change(wl)
	if _, err := wls.Update(context.Background(), wl, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

func cond(wl *kueue.Workload, typ string, status metav1.ConditionStatus, reason, msg string, at time.Time) {
	c := metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(at.Truncate(time.Second))}
	for i := range wl.Status.Conditions {
		if wl.Status.Conditions[i].Type == typ {
			wl.Status.Conditions[i] = c
			return
		}
	}
	wl.Status.Conditions = append(wl.Status.Conditions, c)
}

func admit(wl *kueue.Workload, at time.Time) {
	cond(wl, kueue.WorkloadQuotaReserved, metav1.ConditionTrue, "QuotaReserved", "Quota reserved in ClusterQueue gpu", at)
	cond(wl, kueue.WorkloadAdmitted, metav1.ConditionTrue, "Admitted", "The workload is admitted", at)
	wl.Status.Admission = &kueue.Admission{ClusterQueue: "gpu"}
}

func (h *harness) pods(ns, job string, phases ...corev1.PodPhase) {
	h.t.Helper()
	for _, p := range phases {
		h.mu.Lock()
		h.podN++
		name := fmt.Sprintf("%s-%d", job, h.podN)
		h.mu.Unlock()
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Labels: map[string]string{kinds.JobControllerUIDLabel: "uid-" + job}}, Status: corev1.PodStatus{Phase: p}}
		if _, err := h.kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
			h.t.Fatal(err)
		}
	}
}

func user(id string) rbac.SlackUser { return rbac.SlackUser{ID: id, TeamID: slackfake.TeamID} }

func jobRef(ns, name string) blocks.JobRef {
	return blocks.JobRef{Namespace: ns, Kind: "Job", Name: name}
}

// dm waits for the next chat.postMessage.
func (h *harness) dm(what string) slackfake.Post {
	h.t.Helper()
	for {
		p := slackfake.Receive(h.t, h.fs.Posts, what)
		if p.Method == "chat.postMessage" {
			return p
		}
	}
}

// eventKey is the event key in a DM's metadata ("" for none).
func eventKey(t *testing.T, p slackfake.Post) string {
	t.Helper()
	if p.Metadata == "" {
		return ""
	}
	var md slack.SlackMetadata
	if err := json.Unmarshal([]byte(p.Metadata), &md); err != nil {
		t.Fatalf("metadata %q: %v", p.Metadata, err)
	}
	if md.EventType != MetadataEventType {
		t.Errorf("metadata event_type %q, want %q", md.EventType, MetadataEventType)
	}
	k, _ := md.EventPayload["event"].(string)
	return k
}

func (h *harness) subscribe(u, ns, name string) string {
	h.t.Helper()
	m, err := h.n.Subscribe(context.Background(), user(u), jobRef(ns, name))
	if err != nil {
		h.t.Fatal(err)
	}
	return blocks.Text(m.Blocks)
}

// step moves the fake clock past one tick (expiry, Pods).
func (h *harness) step(d time.Duration) {
	// Wait for Lead's ticker to exist, then step.
	for deadline := time.Now().Add(2 * time.Second); !h.clock.HasWaiters() && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	h.clock.Step(d)
}
