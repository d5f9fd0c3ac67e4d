package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/bot/digests"
	"github.com/kueuebot/kueuebot/internal/slackfake"
)

// serveProc is one `kueuebot serve` process (a bot replica).
type serveProc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startServeProc starts the built binary as replica name (POD_NAME) in the
// bot namespace ns (POD_NAMESPACE) with the config file cfg; it is killed
// when the test ends, whatever happens.
func startServeProc(t *testing.T, bin, cfg, ns, name string) *serveProc {
	t.Helper()
	p := &serveProc{name: name, log: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, "serve", "--config", cfg)
	p.cmd.Env = append(os.Environ(),
		"KUEUEBOT_SLACK_BOTTOKEN=xoxb-e2e", "KUEUEBOT_SLACK_APPTOKEN=xapp-e2e",
		"POD_NAMESPACE="+ns, "POD_NAME="+name)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	dieWithTest(p.cmd)
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			out, _ := os.ReadFile(p.log)
			t.Logf("%s log:\n%s", name, out)
		}
	})
	return p
}

// serveConfig is a `kueuebot serve` config on the fake Slack fs and the
// sandbox sb, as the bot's own kubeconfig, with the given identity
// mappings (lines of identity.users) and any further top-level YAML.
func serveConfig(fs *slackfake.Server, sb, mappings, extra string) string {
	return `slack:
  apiURL: "` + fs.APIURL() + `"
ops:
  listenAddr: "127.0.0.1:0"
kube:
  kubeconfig: "` + filepath.Join(sb, "kubeconfig-kueuebot") + `"
identity:
  refusalContact: "#platform-help"
  users:
` + mappings + extra
}

// startReplicas writes cfgYAML to a file and starts one serve process per
// name, as replicas of one Deployment in the bot namespace ns.
func startReplicas(t *testing.T, bin, cfgYAML, ns string, names ...string) map[string]*serveProc {
	t.Helper()
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfgYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	procs := map[string]*serveProc{}
	for _, name := range names {
		procs[name] = startServeProc(t, bin, cfgPath, ns, name)
	}
	return procs
}

// kill SIGKILLs the process (no shutdown: the Lease is not released) and
// waits until it is gone.
func (p *serveProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// TestDigestServeFailover runs two real `kueuebot serve` processes (the
// built binary, as two pods of one Deployment) against the sandbox API
// server, with a digest scheduled every minute: the leader is SIGKILLed
// while it posts a run, and the survivor takes over: it posts the next
// minute's run, and no run is posted twice.
func TestDigestServeFailover(t *testing.T) {
	sb := sandbox(t)
	if !slices.Contains(scenarioNamespaces(t, sb), "sc-quota-in-use") {
		t.Skip("scenario namespace sc-quota-in-use missing: run make sandbox-scenarios")
	}
	const user = "digest-procs"
	digestRBAC(t, sb, user, []string{"sc-quota-in-use"})
	ns := botNamespace(t, sb)
	bin := kueuebot(t)
	fs := slackfake.New(t)
	procs := startReplicas(t, bin, serveConfig(fs, sb, "", `digests:
  - name: every-minute
    channel: C00PROC001
    schedule: "* * * * *"
    namespaces: [sc-quota-in-use]
    user: `+user+`
`), ns, "pod-a", "pod-b")
	admin := adminClient(t, sb)
	state := &digests.State{Client: admin, Namespace: ns}

	leader := ""
	for deadline := time.Now().Add(30 * time.Second); leader == ""; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no replica took the Lease within 30s")
		}
		leader = leaseHolder(t, admin, ns)
	}
	survivor := map[string]string{"pod-a": "pod-b", "pod-b": "pod-a"}[leader]
	t.Logf("%s leads", leader)

	// mainPost waits for the next channel message (thread replies are
	// skipped) until deadline.
	mainPost := func(what string, deadline time.Time) slackfake.Post {
		t.Helper()
		for {
			select {
			case p := <-fs.Posts:
				if p.ThreadTS == "" {
					return p
				}
			case <-time.After(time.Until(deadline)):
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}

	// The first run: the leader posts it at the next whole minute; it is
	// killed the moment its message reaches Slack, before it records the
	// run as posted or posts the thread.
	first := mainPost("the first digest", time.Now().Add(75*time.Second))
	procs[leader].kill()
	run1, err := state.Get(t.Context(), "every-minute")
	if err != nil || run1 == nil {
		t.Fatalf("state after the first digest: %+v, %v", run1, err)
	}
	if run1.Holder != leader || first.Channel != "C00PROC001" || !strings.Contains(first.Blocks, "Pending-queue digest: every-minute") {
		t.Errorf("first digest %+v recorded as %+v, want posted by %s", first, run1, leader)
	}
	t.Logf("%s posted %s and was killed (state %s)", leader, run1.Key, run1.Status)

	// The survivor takes the Lease once it expires (8s) and posts the next
	// minute's run, once; the killed leader's run is not posted again.
	next := run1.Scheduled.Add(time.Minute)
	second := mainPost("the digest after the failover", next.Add(45*time.Second))
	run2, err := state.Get(t.Context(), "every-minute")
	if err != nil || run2 == nil {
		t.Fatalf("state after the second digest: %+v, %v", run2, err)
	}
	if want := digests.RunKey("every-minute", next); run2.Key != want || run2.Holder != survivor {
		t.Errorf("second digest recorded as %+v, want %s by %s", run2, want, survivor)
	}
	if h := leaseHolder(t, admin, ns); h != survivor {
		t.Errorf("Lease held by %q after the failover, want %s", h, survivor)
	}
	if strings.Contains(second.Blocks, "comes late") {
		t.Errorf("the survivor's on-time digest carries the late note")
	}
	// Nothing else: no run twice, no other message, until the survivor's
	// thread is posted and a few seconds more.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		select {
		case p := <-fs.Posts:
			if p.ThreadTS == "" {
				t.Errorf("a third message within %s of the second: %s", time.Since(second.At).Round(time.Second), abbrev(p.Blocks))
			}
		case <-time.After(time.Until(deadline)):
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if run2, err = state.Get(t.Context(), "every-minute"); err != nil {
			t.Fatal(err)
		}
		if run2.Status == digests.StatusPosted || time.Now().After(deadline) {
			break
		}
	}
	if run2.Status != digests.StatusPosted || run2.Key != digests.RunKey("every-minute", next) {
		t.Errorf("state after the second digest = %+v, want it posted", run2)
	}
}

func abbrev(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%s… (%d bytes)", s[:200], len(s))
	}
	return s
}
