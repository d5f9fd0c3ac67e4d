package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/internal/slackfake"
)

const scenarios = "../../deploy/examples/scenarios"

func TestRunDigestFromFile(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{name: "text", args: []string{"digest", "--namespace", "sc-quota-in-use", "--namespace", "sc-lq-stopped", "--from-file", scenarios},
			wantCode: exitOK, wantOut: []string{"Digest sc-quota-in-use, sc-lq-stopped", "Pending by verdict:", "WaitingForQuota: 1", "OnHold: 1", "Needs action", "sc-lq-stopped/job/"}},
		{name: "markdown", args: []string{"digest", "--cluster-queue", "sc-quota-in-use", "-o", "markdown", "--from-file", scenarios},
			wantCode: exitOK, wantOut: []string{"### Digest sc-quota-in-use", "| ClusterQueue sc-quota-in-use |"}},
		{name: "top and long wait", args: []string{"digest", "--top", "1", "--long-wait", "1m", "--from-file", scenarios},
			wantCode: exitOK, wantOut: []string{"... and", "waiting over 1m"}},
		{name: "french", args: []string{"digest", "--lang", "fr", "--namespace", "sc-quota-in-use", "--from-file", scenarios},
			wantCode: exitOK, wantOut: []string{"Synthèse sc-quota-in-use", "En attente, par verdict :", "WaitingForQuota: 1"}},
		{name: "japanese markdown", args: []string{"digest", "--lang", "ja", "-o", "markdown", "--cluster-queue", "sc-quota-in-use", "--from-file", scenarios},
			wantCode: exitOK, wantOut: []string{"### ダイジェスト sc-quota-in-use", "| キュー | 状態 |"}},
		{name: "bad lang", args: []string{"digest", "--lang", "tlh", "--from-file", scenarios}, wantCode: exitUsage, wantErr: `--lang: "tlh"`},
		{name: "bad format", args: []string{"digest", "-o", "yaml", "--from-file", scenarios}, wantCode: exitUsage, wantErr: `unknown output format "yaml"`},
		{name: "bad local queue", args: []string{"digest", "--local-queue", "user-queue", "--from-file", scenarios}, wantCode: exitUsage, wantErr: "want NAMESPACE/NAME"},
		{name: "post without channel", args: []string{"digest", "--post", "--from-file", scenarios}, wantCode: exitUsage, wantErr: "--post needs a channel"},
		{name: "unknown name", args: []string{"digest", "--name", "nope", "--config", "../../config/example.yaml", "--from-file", scenarios},
			wantCode: exitUsage, wantErr: `no digest named "nope"`},
		{name: "name and scope", args: []string{"digest", "--name", "team-a-daily", "--namespace", "x", "--config", "../../config/example.yaml"},
			wantCode: exitUsage, wantErr: "--name takes its scope from the config"},
		{name: "from-file with --as", args: []string{"digest", "--as", "alice", "--from-file", scenarios}, wantCode: exitUsage, wantErr: "reads no cluster"},
		{name: "arguments", args: []string{"digest", "team-a"}, wantCode: exitUsage, wantErr: "unknown command"},
		{name: "missing file", args: []string{"digest", "--from-file", "/does/not/exist"}, wantCode: exitError, wantErr: "cannot read the dump"},
	}
	// Without --lang the locale decides: English here.
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "C.UTF-8")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &out, &errOut)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut.String())
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr lacks %q: %s", tt.wantErr, errOut.String())
			}
		})
	}
}

// -o json groups every pending workload under its verdict code.
func TestRunDigestJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"digest", "-o", "json", "--from-file", scenarios}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var d struct {
		Totals struct{ Pending int }
		Groups []struct {
			Code      string
			Count     int
			Workloads []struct{ Namespace, Kind, Name, Code string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range d.Groups {
		if g.Count != len(g.Workloads) {
			t.Errorf("group %s counts %d, lists %d", g.Code, g.Count, len(g.Workloads))
		}
		for _, w := range g.Workloads {
			n++
			if w.Code != g.Code || w.Name == "" || w.Namespace == "" {
				t.Errorf("workload %+v in group %s", w, g.Code)
			}
		}
	}
	if n != d.Totals.Pending || n == 0 {
		t.Errorf("%d workloads in groups, %d pending", n, d.Totals.Pending)
	}
}

// --post posts the digest to the --name digest's channel, the details in
// its thread.
func TestRunDigestPost(t *testing.T) {
	fs := slackfake.New(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	data := `slack:
  apiURL: "` + fs.APIURL() + `"
digests:
  - name: quota
    channel: C00QUOTA01
    schedule: "0 9 * * *"
    namespaces: [sc-quota-in-use]
    user: kueuebot-digest
`
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUEUEBOT_SLACK_BOTTOKEN", "xoxb-test")
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"digest", "--name", "quota", "--config", cfg, "--post", "--from-file", scenarios}, strings.NewReader(""), &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	main := slackfake.Receive(t, fs.Posts, "the digest")
	if main.Method != "chat.postMessage" || main.Channel != "C00QUOTA01" || main.ThreadTS != "" || !strings.Contains(main.Blocks, "Pending-queue digest: quota") {
		t.Errorf("digest message = %+v", main)
	}
	reply := slackfake.Receive(t, fs.Posts, "a thread reply")
	if reply.Channel != "C00QUOTA01" || reply.ThreadTS == "" {
		t.Errorf("thread reply = %+v", reply)
	}
	if !strings.Contains(errOut.String(), `posted digest "quota" to C00QUOTA01`) {
		t.Errorf("stderr: %s", errOut.String())
	}
}
