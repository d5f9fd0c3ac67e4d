package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunCheckRefuses(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a, labels: {kueue.x-k8s.io/queue-name: q}}\nspec: {template: {spec: {containers: [{name: c, image: i}]}}}\n"
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantErr  string
	}{
		{name: "no file", args: []string{"check"}, wantCode: exitUsage, wantErr: "check needs the manifest: -f FILE"},
		{name: "an argument", args: []string{"check", "job.yaml"}, wantCode: exitUsage, wantErr: "not arguments"},
		{name: "missing file", args: []string{"check", "-f", "/does/not/exist.yaml"}, wantCode: exitUsage, wantErr: "cannot read /does/not/exist.yaml"},
		{name: "not YAML on stdin", args: []string{"check", "-f", "-"}, stdin: "kind: [", wantCode: exitUsage, wantErr: "-: This is not YAML"},
		{name: "several documents", args: []string{"check", "-f", "-"}, stdin: job + "---\n" + job, wantCode: exitUsage, wantErr: "holds 2 YAML documents"},
		{name: "not a job kind", args: []string{"check", "-f", "-"}, stdin: "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: web}\n", wantCode: exitUsage, wantErr: "Kind DaemonSet (apps/v1) is not a job kind"},
		{name: "unknown --lang", args: []string{"check", "-f", "-", "--lang", "de"}, stdin: job, wantCode: exitUsage, wantErr: `--lang: "de" is not a language kueuebot answers in`},
		{name: "bad format", args: []string{"check", "-f", "-", "-o", "yaml"}, stdin: job, wantCode: exitUsage, wantErr: `unknown output format "yaml"`},
		{name: "unreachable cluster", args: []string{"check", "-f", "-", "-n", "team-a", "--kubeconfig", "testdata/unreachable.kubeconfig", "--request-timeout", "2s"}, stdin: job, wantCode: exitError, wantErr: "cannot check -"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(tt.stdin), &out, &errOut)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr lacks %q: %s", tt.wantErr, errOut.String())
			}
		})
	}
}
