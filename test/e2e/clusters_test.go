package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/internal/faultproxy"
	"github.com/kueuebot/kueuebot/internal/slackfake"
	"github.com/kueuebot/kueuebot/rbac"
)

// clustersIdentity maps alice (and nobody else) in every cluster.
const clustersIdentity = `identity:
  refusalContact: "#platform-help"
  users:
    - {slackUserID: U0000ALICE, teamID: T0000ACME1, user: alice, groups: [team-a]}
`

// workerSandbox returns the worker control plane's state folder, or skips.
func workerSandbox(t *testing.T, sb string) string {
	t.Helper()
	w := filepath.Join(sb, "worker")
	if _, err := os.Stat(filepath.Join(w, "kubeconfig-kueuebot")); err != nil {
		t.Skip("no MultiKueue worker: run make sandbox-up SANDBOX_WORKER=1")
	}
	return w
}

// needMultiKueueAdmitted skips unless scenario multikueue-admitted is
// applied on both planes.
func needMultiKueueAdmitted(t *testing.T, sb, worker string) {
	t.Helper()
	for _, dir := range []string{sb, worker} {
		if _, err := adminClient(t, dir).BatchV1().Jobs("sc-multikueue-admitted").Get(t.Context(), "train", metav1.GetOptions{}); err != nil {
			t.Skipf("scenario multikueue-admitted is not applied in %s (make sandbox-scenarios SCENARIO=multikueue-admitted SCENARIO_OUT=/tmp/x): %v", dir, err)
		}
	}
}

// chatAs asks one question through `kueuebot chat --config`, the bot's
// wiring with the configured clusters (explain.Fleet), as Slack user
// U0000ALICE, and returns the answer.
func chatAs(t *testing.T, cfgPath, question string) string {
	t.Helper()
	cmd := exec.Command(kueuebot(t), "chat", "--config", cfgPath, "--user", "U0000ALICE")
	cmd.Stdin = strings.NewReader(question + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kueuebot chat: %v\n%s%s", err, out.String(), errb.String())
	}
	return out.String()
}

func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	if _, err := config.Parse([]byte(yaml)); err != nil {
		t.Fatalf("test config: %v\n%s", err, yaml)
	}
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClustersAskAsAlice: the manager and the MultiKueue worker of the
// sandbox configured as two clusters; alice asks about a job on each, and
// about the MultiKueue job the manager dispatched to the worker; the audit
// logs of both API servers show every read impersonated as alice.
func TestClustersAskAsAlice(t *testing.T) {
	sb := sandbox(t)
	worker := workerSandbox(t, sb)
	needMultiKueueAdmitted(t, sb, worker)
	cfgYAML := clustersIdentity + fmt.Sprintf(`clusters:
  - {name: manager, kubeconfig: %s}
  - {name: gpu-west, kubeconfig: %s, multiKueueCluster: sc-mk-admitted-worker1}
`, filepath.Join(sb, "kubeconfig-kueuebot"), filepath.Join(worker, "kubeconfig-kueuebot"))
	cfgPath := writeConfig(t, cfgYAML)
	cfg, err := config.Parse([]byte(cfgYAML))
	if err != nil {
		t.Fatal(err)
	}
	grantBot(t, sb, cfg)
	grantBot(t, worker, cfg)

	// A job only the worker holds (not managed by Kueue: suspended, no queue).
	wadmin := adminClient(t, worker)
	only := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-only-west", Namespace: "sc-multikueue-admitted"},
		Spec: batchv1.JobSpec{Suspend: ptrTo(true), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
		}}},
	}
	if _, err := wadmin.BatchV1().Jobs(only.Namespace).Create(t.Context(), only, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		bg := metav1.DeletePropagationBackground
		_ = wadmin.BatchV1().Jobs(only.Namespace).Delete(context.Background(), only.Name, metav1.DeleteOptions{PropagationPolicy: &bg})
	})

	start := time.Now().Add(-time.Second)
	// train is on both planes (MultiKueue copied it): which one?
	got := chatAs(t, cfgPath, "why is train waiting -n sc-multikueue-admitted")
	for _, want := range []string{"`train` is in several clusters. Which one do you mean?", "[manager] [gpu-west]", "manager", "gpu-west"} {
		if !strings.Contains(got, want) {
			t.Errorf("unnamed cluster: the answer lacks %q:\n%s", want, got)
		}
	}
	// On the manager: its MultiKueue check, and the worker's own diagnosis,
	// read in gpu-west (the configured cluster of MultiKueueCluster
	// sc-mk-admitted-worker1).
	got = chatAs(t, cfgPath, "why is train waiting on manager -n sc-multikueue-admitted")
	for _, want := range []string{"*Cluster* `manager`", "OnWorkerCluster", "On worker cluster `sc-mk-admitted-worker1`", "sc-multikueue-admitted-worker"} {
		if !strings.Contains(got, want) {
			t.Errorf("on manager: the answer lacks %q:\n%s", want, got)
		}
	}
	// The Slack command form, on the worker.
	got = chatAs(t, cfgPath, "/kueue why train gpu-west -n sc-multikueue-admitted")
	for _, want := range []string{"*Cluster* `gpu-west`", "`user-queue` → `sc-multikueue-admitted-worker`"} {
		if !strings.Contains(got, want) {
			t.Errorf("on gpu-west: the answer lacks %q:\n%s", want, got)
		}
	}
	// Found in one cluster only: answered, naming it.
	got = chatAs(t, cfgPath, "why is e2e-only-west waiting -n sc-multikueue-admitted")
	if !strings.Contains(got, "*Cluster* `gpu-west`") || strings.Contains(got, "several clusters") || strings.Contains(got, "can't find") {
		t.Errorf("a job on gpu-west only must be answered there, naming it:\n%s", got)
	}
	// Nowhere: one answer saying where it looked.
	got = chatAs(t, cfgPath, "why is e2e-nowhere waiting -n sc-multikueue-admitted")
	if !strings.Contains(got, "I can't find e2e-nowhere in any of your clusters (manager, gpu-west)") {
		t.Errorf("a missing job: the answer must name both clusters:\n%s", got)
	}
	// The CLI: diagnose --config --cluster, as alice.
	out, err := exec.Command(kueuebot(t), "diagnose", "train", "-n", "sc-multikueue-admitted", "--config", cfgPath, "--cluster", "gpu-west", "--as", "alice", "-o", "json").CombinedOutput()
	if err != nil {
		t.Fatalf("diagnose --cluster gpu-west: %v\n%s", err, out)
	}
	var r struct {
		Cluster string `json:"cluster"`
		Queue   struct {
			ClusterQueue string `json:"clusterQueue"`
		} `json:"queue"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Cluster != "gpu-west" || r.Queue.ClusterQueue != "sc-multikueue-admitted-worker" {
		t.Errorf("diagnose --cluster gpu-west: cluster %q ClusterQueue %q (%v)\n%s", r.Cluster, r.Queue.ClusterQueue, err, out)
	}
	out, err = exec.Command(kueuebot(t), "diagnose", "train", "-n", "sc-multikueue-admitted", "--config", cfgPath, "--as", "alice").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--cluster manager") || !strings.Contains(string(out), "--cluster gpu-west") {
		t.Errorf("diagnose without --cluster, on a job in both: want the list of clusters and an error, got %v\n%s", err, out)
	}

	// Both audit logs: the bot's reads since start are alice's (with her
	// Slack user ID), or cluster-scoped; never a namespaced read as the bot.
	for _, dir := range []string{sb, worker} {
		var n int
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(250 * time.Millisecond) {
			n = 0
			bad := false
			for _, ev := range botEvents(t, filepath.Join(dir, "audit.log"), start) {
				imp := ""
				if ev.ImpersonatedUser != nil {
					imp = ev.ImpersonatedUser.Username
				}
				switch {
				case imp == "" && ev.ObjectRef.Namespace != "":
					t.Errorf("%s: namespaced read by the bot's own identity: %s %s", dir, ev.Verb, ev.RequestURI)
					bad = true
				case imp != "" && imp != "alice":
					t.Errorf("%s: read impersonating %q, want alice: %s", dir, imp, ev.RequestURI)
					bad = true
				case imp == "alice":
					n++
					if ev.ImpersonatedUser.Extra[rbac.ExtraSlackUserID] != nil && ev.ImpersonatedUser.Extra[rbac.ExtraSlackUserID][0] != "U0000ALICE" {
						t.Errorf("%s: alice's read with Slack ID %v", dir, ev.ImpersonatedUser.Extra[rbac.ExtraSlackUserID])
					}
				}
			}
			if n > 0 || bad || time.Now().After(deadline) {
				break
			}
		}
		if n == 0 {
			t.Errorf("%s: no read impersonating alice in the audit log", dir)
		}
		t.Logf("%s: %d reads as alice", dir, n)
	}
}

// botEvents are the completed requests of the bot's user kueuebot since.
func botEvents(t *testing.T, path string, since time.Time) []auditEvent {
	t.Helper()
	var out []auditEvent
	for _, line := range auditLines(t, path, `"username":"kueuebot"`) {
		var ev auditEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Stage != "ResponseComplete" || ev.User.Username != "kueuebot" || ev.RequestReceivedTimestamp.Before(since) {
			continue
		}
		if ev.ObjectRef.Resource == "subjectaccessreviews" || ev.ObjectRef.Resource == "selfsubjectaccessreviews" {
			continue
		}
		out = append(out, ev)
	}
	return out
}

// TestClustersOneHangs: the worker reached through a proxy that hangs (or
// fails) the bot's first request there; the manager answers, and the
// answer names the worker as the cluster that did not answer, never "not
// found".
func TestClustersOneHangs(t *testing.T) {
	sb := sandbox(t)
	worker := workerSandbox(t, sb)
	needMultiKueueAdmitted(t, sb, worker)
	bot, err := clientcmd.BuildConfigFromFlags("", filepath.Join(worker, "kubeconfig-kueuebot"))
	if err != nil {
		t.Fatal(err)
	}
	backend, err := url.Parse(bot.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(bot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []faultproxy.Fault{faultproxy.Hang, faultproxy.Unavailable} {
		t.Run(string(f), func(t *testing.T) {
			p := faultproxy.New(backend, transport)
			defer p.Close()
			p.MaxHang = 20 * time.Second
			p.Arm(1, f)
			kc := filepath.Join(t.TempDir(), "kubeconfig")
			if err := os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: proxy, cluster: {server: %q}}]
users: [{name: bot, user: {}}]
contexts: [{name: proxy, context: {cluster: proxy, user: bot}}]
current-context: proxy
`, p.URL)), 0o600); err != nil {
				t.Fatal(err)
			}
			cfgYAML := clustersIdentity + fmt.Sprintf(`clusters:
  - {name: manager, kubeconfig: %s}
  - {name: gpu-west, kubeconfig: %s, timeout: 3s}
`, filepath.Join(sb, "kubeconfig-kueuebot"), kc)
			cfg, err := config.Parse([]byte(cfgYAML))
			if err != nil {
				t.Fatal(err)
			}
			grantBot(t, sb, cfg)
			grantBot(t, worker, cfg)
			started := time.Now()
			got := chatAs(t, writeConfig(t, cfgYAML), "why is train waiting -n sc-multikueue-admitted")
			took := time.Since(started)
			if !p.Hit() {
				t.Fatalf("the proxy never saw the bot's request: %v", p.Requests())
			}
			if !strings.Contains(got, "*Cluster* `manager`") || !strings.Contains(got, "gpu-west` did not answer") {
				t.Errorf("want the manager's answer naming gpu-west as not answering:\n%s", got)
			}
			if strings.Contains(got, "can't find") {
				t.Errorf("a cluster that did not answer turned the answer into not found:\n%s", got)
			}
			if f == faultproxy.Hang && !strings.Contains(got, "did not answer within 3s") {
				t.Errorf("a hang must be named as the 3s timeout:\n%s", got)
			}
			t.Logf("%s: answered in %s", f, took.Round(time.Millisecond))
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestClustersServeCost measures `kueuebot serve` with 1, 5 and 20
// configured clusters (all the sandbox's manager, under different names):
// the time from start to the Socket Mode connection, the process's
// resident memory then and after one question that must look in every
// cluster, and that question's latency. It logs the numbers (docs record
// them) and checks only that every cluster was looked in.
func TestClustersServeCost(t *testing.T) {
	sb := sandbox(t)
	worker := workerSandbox(t, sb)
	needMultiKueueAdmitted(t, sb, worker)
	bin := kueuebot(t)
	for _, n := range []int{1, 5, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ns := botNamespace(t, sb) // its own Lease: no wait for a killed leader's
			fs := slackfake.New(t)
			fs.SetUser(slack.User{ID: "U0000ALICE", Name: "alice"})
			var cl strings.Builder
			cl.WriteString("clusters:\n")
			for i := range n {
				fmt.Fprintf(&cl, "  - {name: c%02d, kubeconfig: %s}\n", i, filepath.Join(sb, "kubeconfig-kueuebot"))
			}
			cfgYAML := serveConfig(fs, sb, fmt.Sprintf("    - {slackUserID: U0000ALICE, teamID: %s, user: alice, groups: [team-a]}\n", slackfake.TeamID), cl.String())
			cfg, err := config.Parse([]byte(cfgYAML))
			if err != nil {
				t.Fatal(err)
			}
			grantBot(t, sb, cfg)
			start := time.Now()
			procs := startReplicas(t, bin, cfgYAML, ns, fmt.Sprintf("cost-%d", n))
			conn := slackfake.Receive(t, fs.Conns, "the Socket Mode connection")
			ready := time.Since(start)
			pid := procs[fmt.Sprintf("cost-%d", n)].cmd.Process.Pid
			rssReady := rssKiB(t, pid)
			asked := time.Now()
			if _, err := fs.Send(conn, slackfake.EventsEnvelope("env-cost", "EvCost", 0,
				slackfake.Mention("U0000ALICE", "C0COST", "1000.0", "", "<@UBOT> why is train waiting -n sc-multikueue-admitted?"))); err != nil {
				t.Fatal(err)
			}
			var answer slackfake.Post
			for {
				answer = slackfake.Receive(t, fs.Posts, "the answer")
				if !strings.Contains(answer.Text+answer.Blocks, "I will answer in a moment") {
					break
				}
			}
			latency := time.Since(asked)
			want := "`c00`"
			if n > 1 {
				want = "several clusters"
			}
			if !strings.Contains(answer.Text+answer.Blocks, strings.Trim(want, "`")) {
				t.Errorf("answer with %d clusters lacks %q: %s %s", n, want, answer.Text, answer.Blocks)
			}
			t.Logf("%2d clusters: connected after %s, RSS %d KiB; a question looking in all answered in %s, RSS then %d KiB",
				n, ready.Round(time.Millisecond), rssReady, latency.Round(time.Millisecond), rssKiB(t, pid))
		})
	}
}

// rssKiB is the resident memory of process pid (Linux /proc).
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kib int
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d", &kib); err != nil {
				t.Fatalf("VmRSS %q: %v", v, err)
			}
			return kib
		}
	}
	return 0
}

// TestClustersQueuesCheckDigest: with the manager and the MultiKueue
// worker configured as two clusters, alice's queues are listed in both,
// each naming its cluster, or in the one she names; "Will this fit?"
// (kueuebot check --config) answers in each cluster that has the
// manifest's LocalQueue, naming it; a digest reads the cluster it names.
func TestClustersQueuesCheckDigest(t *testing.T) {
	sb := sandbox(t)
	worker := workerSandbox(t, sb)
	needMultiKueueAdmitted(t, sb, worker)
	cfgYAML := clustersIdentity + fmt.Sprintf(`clusters:
  - {name: manager, kubeconfig: %s}
  - {name: gpu-west, kubeconfig: %s, multiKueueCluster: sc-mk-admitted-worker1}
`, filepath.Join(sb, "kubeconfig-kueuebot"), filepath.Join(worker, "kubeconfig-kueuebot"))
	cfgPath := writeConfig(t, cfgYAML)
	cfg, err := config.Parse([]byte(cfgYAML))
	if err != nil {
		t.Fatal(err)
	}
	grantBot(t, sb, cfg)
	grantBot(t, worker, cfg)

	started := time.Now()
	got := chatAs(t, cfgPath, "my queues -n sc-multikueue-admitted")
	t.Logf("queues in two clusters: answered in %s", time.Since(started).Round(time.Millisecond))
	for _, want := range []string{"manager: sc-multikueue-admitted/user-queue", "gpu-west: sc-multikueue-admitted/user-queue"} {
		if !strings.Contains(got, want) {
			t.Errorf("my queues lacks %q:\n%s", want, got)
		}
	}
	got = chatAs(t, cfgPath, "/kueue queues gpu-west -n sc-multikueue-admitted")
	if !strings.Contains(got, "gpu-west: sc-multikueue-admitted/user-queue") || strings.Contains(got, "manager:") {
		t.Errorf("queues gpu-west must list gpu-west's only:\n%s", got)
	}

	manifest := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(manifest, []byte(`apiVersion: batch/v1
kind: Job
metadata:
  name: e2e-fit
  namespace: sc-multikueue-admitted
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m}}}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Cluster  string `json:"cluster"`
		Clusters []struct {
			Cluster string `json:"cluster"`
			Found   bool   `json:"found"`
			Error   string `json:"error"`
		} `json:"clusters"`
		Queues []struct {
			Cluster    string `json:"cluster"`
			LocalQueue string `json:"localQueue"`
			Fit        string `json:"fit"`
		} `json:"queues"`
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"manager", "gpu-west"}},
		{[]string{"--cluster", "gpu-west"}, []string{"gpu-west"}},
	} {
		args := append([]string{"check", "-f", manifest, "--config", cfgPath, "--as", "alice", "-o", "json"}, tc.args...)
		out, err := exec.Command(kueuebot(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("check %v: %v\n%s", tc.args, err, out)
		}
		rep.Queues, rep.Clusters, rep.Cluster = nil, nil, ""
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("check %v: %v\n%s", tc.args, err, out)
		}
		var clusters []string
		for _, q := range rep.Queues {
			if q.LocalQueue != "user-queue" {
				t.Errorf("check %v: queue %+v", tc.args, q)
			}
			clusters = append(clusters, q.Cluster)
		}
		if strings.Join(clusters, ",") != strings.Join(tc.want, ",") {
			t.Errorf("check %v: answered in %v, want %v\n%s", tc.args, clusters, tc.want, out)
		}
		for _, l := range rep.Clusters {
			if l.Error != "" {
				t.Errorf("check %v: %s failed: %s", tc.args, l.Cluster, l.Error)
			}
		}
	}

	dig := exec.Command(kueuebot(t), "digest", "--config", cfgPath, "--cluster", "gpu-west", "--namespace", "sc-multikueue-admitted", "--as", "alice", "-o", "json")
	var stderr bytes.Buffer
	dig.Stderr = &stderr // warnings about what alice may not list
	out, err := dig.Output()
	if err != nil {
		t.Fatalf("digest --cluster gpu-west: %v\n%s%s", err, out, stderr.String())
	}
	var d struct {
		Cluster string `json:"cluster"`
		Queues  []struct {
			Name string `json:"name"`
		} `json:"queues"`
	}
	if err := json.Unmarshal(out, &d); err != nil || d.Cluster != "gpu-west" || len(d.Queues) == 0 {
		t.Errorf("digest --cluster gpu-west: cluster %q, %d queues (%v)\n%s", d.Cluster, len(d.Queues), err, out)
	}
}
