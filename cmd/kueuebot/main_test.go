package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRunDiagnoseFromFile(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "text", args: []string{"diagnose", "sample-job", "-n", "team-a", "--from-file", "../../deploy/examples/sample-job.yaml"},
			wantCode: exitOK, wantOut: "Verdict:       ExceedsMaxQuota (stage Admission)"},
		{name: "markdown", args: []string{"diagnose", "job/sample-job", "-n", "team-a", "--from-file", "../../deploy/examples/sample-job.yaml", "-o", "markdown"},
			wantCode: exitOK, wantOut: "**Verdict:** `ExceedsMaxQuota`"},
		{name: "not found is still a diagnosis", args: []string{"diagnose", "nope", "-n", "team-a", "--from-file", "../../deploy/examples/sample-job.yaml"},
			wantCode: exitOK, wantOut: "NotFound"},
		{name: "bad kind", args: []string{"diagnose", "frob/x", "--from-file", "../../deploy/examples/sample-job.yaml"},
			wantCode: exitUsage, wantErr: `unknown kind "frob"`},
		{name: "bad format", args: []string{"diagnose", "x", "-o", "yaml", "--from-file", "../../deploy/examples/sample-job.yaml"},
			wantCode: exitUsage, wantErr: `unknown output format "yaml"`},
		{name: "no argument", args: []string{"diagnose"}, wantCode: exitUsage, wantErr: "exactly one"},
		{name: "unknown flag", args: []string{"diagnose", "x", "--frob"}, wantCode: exitUsage, wantErr: "unknown flag"},
		{name: "missing file", args: []string{"diagnose", "x", "--from-file", "/does/not/exist.yaml"}, wantCode: exitError, wantErr: "cannot read the dump"},
		{name: "from-file with --as", args: []string{"diagnose", "x", "--as", "alice", "--from-file", "../../deploy/examples/sample-job.yaml"}, wantCode: exitUsage, wantErr: "reads no cluster"},
		{name: "from-file with --server", args: []string{"diagnose", "x", "--server", "https://k.example", "--token", "t", "--from-file", "../../deploy/examples/sample-job.yaml"}, wantCode: exitUsage, wantErr: "reads no cluster: drop --server, --token"},
		{name: "unreachable cluster", args: []string{"diagnose", "x", "--kubeconfig", "testdata/unreachable.kubeconfig", "--request-timeout", "2s"}, wantCode: exitError, wantErr: "cannot diagnose"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &out, &errOut)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut.String())
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantOut, out.String())
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr lacks %q: %s", tt.wantErr, errOut.String())
			}
		})
	}
}

func TestRunDiagnoseJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"diagnose", "sample-job", "-n", "team-a", "-o", "json", "--from-file", "../../deploy/examples/sample-job.yaml"}, strings.NewReader(""), &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var r struct {
		Verdict struct{ Stage, Code, Cause string }
		Quota   []struct {
			Requested, Nominal, MaxCapacity string
			FitsEver                        bool
		}
		Remedies []struct{ Command string }
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Code != "ExceedsMaxQuota" || len(r.Quota) != 1 || r.Quota[0].Requested != "3" || r.Quota[0].Nominal != "2" || r.Quota[0].FitsEver {
		t.Errorf("unexpected report: %+v", r)
	}
	if len(r.Remedies) == 0 || !strings.Contains(r.Remedies[0].Command, `"parallelism":2`) {
		t.Errorf("first remedy should shrink to parallelism 2: %+v", r.Remedies)
	}
}

func TestChatDemo(t *testing.T) {
	var out, errOut bytes.Buffer
	in := strings.NewReader("why is my job sample-job waiting?\n")
	code := run(t.Context(), []string{"chat"}, in, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "ExceedsMaxQuota") {
		t.Errorf("chat answer lacks the verdict:\n%s", out.String())
	}
	out.Reset()
	code = run(t.Context(), []string{"chat", "--user", "U0000CAROL"}, strings.NewReader("why is my job sample-job waiting?\n"), &out, &errOut)
	if code != exitOK || !strings.Contains(out.String(), "#platform-help") {
		t.Errorf("an unmapped user must be refused with the contact; exit %d:\n%s", code, out.String())
	}
	if strings.Contains(out.String(), "ExceedsMaxQuota") {
		t.Error("an unmapped user got a diagnosis")
	}
}
