package explain

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/rbac"
)

func TestCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "explain.")
}

// TestNoProseOutsideCatalog: the errors, notes and remedies explain
// returns for the user are built through the catalog.
func TestNoProseOutsideCatalog(t *testing.T) {
	for _, p := range i18ntest.ProseLiterals(t, ".", nil) {
		t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
	}
}

// TestEstimateReasonsInEachLanguage: why a wait estimate is missing (the
// read of the queue's Workloads failed) or rests on part of the queue
// (the Workloads of other namespaces were not listed) reads in the
// asker's language.
func TestEstimateReasonsInEachLanguage(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "workloads"}, "", errors.New("no list"))
	for _, tc := range []struct {
		name string
		err  error
		want [4]string
	}{
		{"forbidden", forbidden, [4]string{
			"no estimate: I could not read the Workloads of ClusterQueue cq (you may not list them)",
			"pas d’estimation : je n’ai pas pu lire les Workloads de la ClusterQueue cq (vous n’avez pas le droit de les lister)",
			"見込みなし：ClusterQueue cq の Workload を読み取れませんでした（一覧する権限がありません）",
			"无法估计：我无法读取 ClusterQueue cq 的 Workload（你无权列出它们）",
		}},
		{"timeout", context.DeadlineExceeded, [4]string{
			"no estimate: I could not read the Workloads of ClusterQueue cq (the API server did not answer in time)",
			"pas d’estimation : je n’ai pas pu lire les Workloads de la ClusterQueue cq (le serveur d’API n’a pas répondu à temps)",
			"見込みなし：ClusterQueue cq の Workload を読み取れませんでした（API サーバーが時間内に応答しませんでした）",
			"无法估计：我无法读取 ClusterQueue cq 的 Workload（API 服务器未及时响应）",
		}},
		{"other", errors.New("connection reset"), [4]string{
			"no estimate: I could not read the Workloads of ClusterQueue cq (the read failed)",
			"pas d’estimation : je n’ai pas pu lire les Workloads de la ClusterQueue cq (la lecture a échoué)",
			"見込みなし：ClusterQueue cq の Workload を読み取れませんでした（読み取りに失敗しました）",
			"无法估计：我无法读取 ClusterQueue cq 的 Workload（读取失败）",
		}},
	} {
		est := diagnose.EstimateUnread(now, "cq", readFailure(tc.err))
		if est.NoEstimate != strings.TrimPrefix(tc.want[0], "no estimate: ") {
			t.Errorf("%s: NoEstimate %q, want the English", tc.name, est.NoEstimate)
		}
		for _, l := range i18n.All() {
			if got := est.PhraseIn(l); got != tc.want[l] {
				t.Errorf("%s in %s: %q, want %q", tc.name, l, got, tc.want[l])
			}
		}
	}

	// The caller may list Workloads in its namespace only: the estimate
	// says the other namespaces' were not read.
	_, kube, kq := checkEnv(t)
	kq.PrependReactor("list", "workloads", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() == "" {
			return true, nil, forbidden
		}
		return false, nil, nil
	})
	s := &diagnose.Snapshot{Now: now, Target: diagnose.Target{Kind: "Job", Namespace: "team-a", Name: "train"}}
	in, err := listQueue(t.Context(), fetch.Clients{Kube: kube, Kueue: kq}, s, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for l, want := range map[i18n.Lang]string{
		i18n.English:  "the Workloads of other namespaces (you may not list them)",
		i18n.French:   "les Workloads des autres namespaces (vous n’avez pas le droit de les lister)",
		i18n.Japanese: "ほかの Namespace の Workload（一覧する権限がありません）",
		i18n.Chinese:  "其他命名空间的 Workload（你无权列出它们）",
	} {
		if got := in.Incomplete.In(l); got != want {
			t.Errorf("incomplete in %s: %q, want %q", l, got, want)
		}
	}
}

// TestWorkerErrorsInEachLanguage: a MultiKueue worker cluster whose own
// diagnosis is missing (not configured, or its read failed) is said so
// in the asker's language; Error keeps the English.
func TestWorkerErrorsInEachLanguage(t *testing.T) {
	r := &diagnose.Report{MultiKueue: &diagnose.MultiKueueInfo{Nominated: []string{"worker1", "worker2"}}}
	e := &Explainer{Workers: WorkerReaders{"worker2": failingReader{}}}
	e.followWorkers(t.Context(), rbac.Identity{}, diagnose.Target{Kind: "Job", Namespace: "team-a", Name: "train"}, r)
	if len(r.Workers) != 2 {
		t.Fatalf("workers %+v, want worker1 and worker2", r.Workers)
	}
	for i, want := range [][4]string{{
		"I am not configured to read worker cluster worker1, so I cannot say what happens to the job there.",
		"Je ne suis pas configuré pour lire le cluster worker worker1 : je ne peux donc pas dire ce qu’il advient du job là-bas.",
		"ワーカークラスター worker1 を読み取る設定がされていないため、そこでジョブがどうなっているかは分かりません。",
		"我未被配置为读取工作集群 worker1，因此无法说明该作业在那里的情况。",
	}, {
		"Worker cluster worker2 did not answer: connection refused",
		"Le cluster worker worker2 n’a pas répondu : connection refused",
		"ワーカークラスター worker2 は応答しませんでした：connection refused",
		"工作集群 worker2 没有应答：connection refused",
	}} {
		w := r.Workers[i]
		if w.Report != nil || w.Error != want[0] {
			t.Errorf("%s: Error %q, want %q", w.Cluster, w.Error, want[0])
		}
		for _, l := range i18n.All() {
			if got := w.ErrorIn(l); got != want[l] {
				t.Errorf("%s in %s: %q, want %q", w.Cluster, l, got, want[l])
			}
		}
	}
}

// TestErrorsInEachLanguage: explain's errors for the user keep their
// English (Message, UserMessage) and render in French, Japanese and
// Chinese (UserMessageIn) with no English prose besides the names,
// commands and the clusters' own error texts they quote.
func TestErrorsInEachLanguage(t *testing.T) {
	f, err := NewFleet([]*Cluster{
		{Name: "gpu-west", Explainer: &Explainer{Reader: failingReader{}}},
		{Name: "gpu-east", Explainer: &Explainer{Reader: stuckReader{}}, Timeout: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := rbac.Identity{User: "alice"}
	_, queuesErr := f.Queues(t.Context(), id, QueuesQuery{})
	_, jobsErr := f.Jobs(t.Context(), id, JobsQuery{})
	_, explainErr := f.Explain(t.Context(), id, Question{Name: "train-7"})
	_, unknownErr := f.Queues(t.Context(), id, QueuesQuery{Cluster: "nowhere"})
	_, noNameErr := f.Explain(t.Context(), id, Question{})
	_, dumpErr := (&Explainer{Reader: failingReader{}}).Check(t.Context(), id, CheckRequest{Manifest: []byte("kind: Job\n")})
	tests := []struct {
		name    string
		err     error
		english string
	}{
		{"queues", queuesErr, "I could not list your queues: "},
		{"jobs", jobsErr, "I could not list your jobs: "},
		{"explain", explainErr, "I could not look for train-7: "},
		{"unknown cluster", unknownErr, "I don't know a cluster called nowhere. The clusters I read are: gpu-west, gpu-east."},
		{"no name", noNameErr, "Tell me which job to look at, e.g. `why is train-7 waiting?`"},
		{"dump", dumpErr, "Checking a manifest needs a cluster to compare it with"},
	}
	for _, tt := range tests {
		var ue *Error
		if !errors.As(tt.err, &ue) || ue.Msg.IsZero() {
			t.Errorf("%s: %v, want an *Error with a message", tt.name, tt.err)
			continue
		}
		if !strings.HasPrefix(ue.UserMessage(), tt.english) || ue.UserMessageIn(i18n.English) != ue.UserMessage() {
			t.Errorf("%s: English %q, want it to start with %q", tt.name, ue.UserMessage(), tt.english)
		}
		verbatim := append(ue.Msg.Verbatims(), "connection refused", "train-7", "Job", "Job b")
		for _, l := range i18n.All()[1:] {
			got := ue.UserMessageIn(l)
			if got == ue.Message {
				t.Errorf("%s: %s is the English: %q", tt.name, l, got)
			}
			i18ntest.AssertTranslated(t, l, got, verbatim...)
		}
	}
}

// readErrReader fails every Snapshot with a fault of the cluster.
type readErrReader struct{ failingReader }

func (readErrReader) Snapshot(context.Context, rbac.Identity, diagnose.Target) (*diagnose.Snapshot, error) {
	return nil, &fetch.ReadError{Kind: fetch.KindWorkload, Namespace: "team-a", Name: "job-train", Class: fetch.FaultTimeout,
		Timeout: 5 * time.Second, Err: errors.New("context deadline exceeded")}
}

// TestWorkerReadErrorInEachLanguage: a worker whose read failed with a
// fault of the cluster quotes why in the asker's language (the read's
// reason is a catalog message, not its English), and the estimate that
// quotes a failed read does too; the English stays as it was.
func TestWorkerReadErrorInEachLanguage(t *testing.T) {
	r := &diagnose.Report{MultiKueue: &diagnose.MultiKueueInfo{Nominated: []string{"worker2"}}}
	e := &Explainer{Workers: WorkerReaders{"worker2": readErrReader{}}}
	e.followWorkers(t.Context(), rbac.Identity{}, diagnose.Target{Kind: "Job", Namespace: "team-a", Name: "train"}, r)
	if len(r.Workers) != 1 {
		t.Fatalf("workers %+v, want worker2", r.Workers)
	}
	w := r.Workers[0]
	want := [4]string{
		"Worker cluster worker2 did not answer: The cluster did not answer in 5s when I read the Workload team-a/job-train, so I did not judge your job. Try again in a minute, or tell the platform team if it keeps happening.",
		"Le cluster worker worker2 n’a pas répondu : Le cluster n’a pas répondu en 5s quand j’ai lu l’objet Workload team-a/job-train, je n’ai donc pas jugé votre job. Réessayez dans une minute, ou prévenez l’équipe plateforme si cela se reproduit.",
		"ワーカークラスター worker2 は応答しませんでした：Workload team-a/job-train を読み取ったとき、クラスターが 5s 以内に応答しませんでした。そのため、あなたのジョブは判定していません。1 分後にもう一度試すか、繰り返し起きる場合はプラットフォームチームに伝えてください。",
		"工作集群 worker2 没有应答：读取 Workload team-a/job-train 时，集群没有在 5s 内应答，所以我没有判断你的作业。请一分钟后再试；如果一直发生，请告诉平台团队。",
	}
	if w.Error != want[i18n.English] {
		t.Errorf("Error %q, want %q", w.Error, want[i18n.English])
	}
	for _, l := range i18n.All() {
		if got := w.ErrorIn(l); got != want[l] {
			t.Errorf("in %s:\n got %q\nwant %q", l, got, want[l])
		}
		i18ntest.AssertTranslated(t, l, w.ErrorIn(l), "5s", "worker2", "team-a/job-train")
	}

	// The estimate quotes a failed read of the queue's Workloads.
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	re := &fetch.ReadError{Kind: fetch.KindWorkload, Class: fetch.FaultServerError, Status: 503, Err: errors.New("etcdserver: leader changed")}
	est := diagnose.EstimateUnread(now, "cq", readFailure(re))
	for l, want := range map[i18n.Lang]string{
		i18n.English: "no estimate: I could not read the Workloads of ClusterQueue cq (The cluster answered with a server error (HTTP 503 Service Unavailable) when I read the Workloads, so I did not judge your job. Try again in a minute, or tell the platform team if it keeps happening.)",
		i18n.French:  "pas d’estimation : je n’ai pas pu lire les Workloads de la ClusterQueue cq (Le cluster a répondu par une erreur serveur (HTTP 503 Service Unavailable) quand j’ai lu les Workloads, je n’ai donc pas jugé votre job. Réessayez dans une minute, ou prévenez l’équipe plateforme si cela se reproduit.)",
	} {
		if got := est.PhraseIn(l); got != want {
			t.Errorf("estimate in %s:\n got %q\nwant %q", l, got, want)
		}
	}
}
