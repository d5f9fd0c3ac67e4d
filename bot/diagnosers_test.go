package bot

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/deploy/examples"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/rbac"
)

func TestDiagnoseInNamespaces(t *testing.T) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	d := &DumpDiagnoser{Dump: dump}
	id := func(ns ...string) rbac.Identity { return rbac.Identity{User: "alice", Namespaces: ns} }
	tests := []struct {
		name      string
		id        rbac.Identity
		req       Request
		wantCode  diagnose.Code
		wantError string
	}{
		{name: "found in one of several", id: id("team-b", "sc-sample-job", "team-a"), req: Request{Intent: IntentDiagnose, Name: "sample-job"}, wantError: "several"},
		{name: "found once", id: id("sc-sample-job", "sc-preempted"), req: Request{Intent: IntentDiagnose, Name: "sample-job"}, wantCode: diagnose.CodeExceedsMaxQuota},
		{name: "nowhere", id: id("sc-preempted", "sc-strict-fifo"), req: Request{Intent: IntentDiagnose, Name: "sample-job"}, wantCode: diagnose.CodeNotFound},
		{name: "explicit namespace outside the user's looks empty", id: id("sc-preempted"), req: Request{Intent: IntentDiagnose, Name: "sample-job", Namespace: "sc-sample-job"}, wantCode: diagnose.CodeNotFound},
		{name: "no namespaces", id: id(), req: Request{Intent: IntentDiagnose, Name: "sample-job"}, wantError: "which namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := d.Diagnose(t.Context(), tt.id, tt.req)
			if tt.wantError != "" {
				var um UserMessager
				if err == nil || !errors.As(err, &um) || !strings.Contains(um.UserMessage(), tt.wantError) {
					t.Fatalf("error = %v, want a user message containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict.Code != tt.wantCode {
				t.Errorf("code %s, want %s (%s)", r.Verdict.Code, tt.wantCode, r.Verdict.Headline)
			}
		})
	}
}

func TestDiagnoseInTruncated(t *testing.T) {
	read := func(_ context.Context, t diagnose.Target) (*diagnose.Snapshot, error) {
		return &diagnose.Snapshot{Target: t}, nil
	}
	r, err := diagnoseIn(t.Context(), Request{Name: "x"}, []string{"a", "b"}, true, read)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Code != diagnose.CodeNotFound || !strings.Contains(r.Verdict.Detail, "first 2 of your namespaces") {
		t.Errorf("a truncated search must say so: %+v", r.Verdict)
	}
}
