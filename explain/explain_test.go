package explain

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

func TestExplainDump(t *testing.T) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	e := &Explainer{Reader: &DumpReader{Dump: dump}}
	id := func(ns ...string) rbac.Identity { return rbac.Identity{User: "alice", Namespaces: ns} }
	tests := []struct {
		name      string
		id        rbac.Identity
		q         Question
		wantCode  diagnose.Code
		wantNS    []string
		wantError string
	}{
		{name: "found in one of several", id: id("team-b", "sc-sample-job", "team-a"), q: Question{Name: "sample-job"}, wantError: "several"},
		{name: "found once", id: id("sc-sample-job", "sc-preempted"), q: Question{Name: "sample-job"}, wantCode: diagnose.CodeExceedsMaxQuota, wantNS: []string{"sc-sample-job", "sc-preempted"}},
		{name: "nowhere", id: id("sc-preempted", "sc-strict-fifo"), q: Question{Name: "sample-job"}, wantCode: diagnose.CodeNotFound, wantNS: []string{"sc-preempted", "sc-strict-fifo"}},
		{name: "explicit namespace outside the user's looks empty", id: id("sc-preempted"), q: Question{Name: "sample-job", Namespace: "sc-sample-job"}, wantCode: diagnose.CodeNotFound, wantNS: []string{"sc-sample-job"}},
		{name: "no namespaces", id: id(), q: Question{Name: "sample-job"}, wantError: "which namespace"},
		{name: "no name", id: id("sc-sample-job"), q: Question{}, wantError: "which job"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := e.Explain(t.Context(), tt.id, tt.q)
			if tt.wantError != "" {
				var ue *Error
				if err == nil || !errors.As(err, &ue) || !strings.Contains(ue.UserMessage(), tt.wantError) {
					t.Fatalf("error = %v, want a user message containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Report.Verdict.Code != tt.wantCode {
				t.Errorf("code %s, want %s (%s)", r.Report.Verdict.Code, tt.wantCode, r.Report.Verdict.Headline)
			}
			if strings.Join(r.Namespaces.Names, ",") != strings.Join(tt.wantNS, ",") {
				t.Errorf("namespaces %v, want %v", r.Namespaces.Names, tt.wantNS)
			}
		})
	}
}

func TestExplainUnrestrictedDump(t *testing.T) {
	dump, err := fetch.LoadFS(examples.FS)
	if err != nil {
		t.Fatal(err)
	}
	e := &Explainer{Reader: &DumpReader{Dump: dump, Unrestricted: true}}
	r, err := e.Explain(t.Context(), rbac.Identity{}, Question{Name: "sample-job", Namespace: "sc-sample-job"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Report.Verdict.Code != diagnose.CodeExceedsMaxQuota {
		t.Errorf("code %s, want ExceedsMaxQuota", r.Report.Verdict.Code)
	}
}

// fakeReader returns empty snapshots and counts reads.
type fakeReader struct {
	nss   rbac.Namespaces
	reads []diagnose.Target
	err   error
}

func (f *fakeReader) Namespaces(context.Context, rbac.Identity, string) (rbac.Namespaces, error) {
	return f.nss, nil
}

func (f *fakeReader) Snapshot(_ context.Context, _ rbac.Identity, t diagnose.Target) (*diagnose.Snapshot, error) {
	f.reads = append(f.reads, t)
	if f.err != nil {
		return nil, f.err
	}
	return &diagnose.Snapshot{Target: t}, nil
}

func TestExplainTruncated(t *testing.T) {
	r := &fakeReader{nss: rbac.Namespaces{Names: []string{"a", "b"}, Truncated: true}}
	res, err := (&Explainer{Reader: r}).Explain(t.Context(), rbac.Identity{User: "u"}, Question{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Verdict.Code != diagnose.CodeNotFound || !strings.Contains(res.Report.Verdict.Detail, "first 2 of your namespaces") {
		t.Errorf("a truncated search must say so: %+v", res.Report.Verdict)
	}
	if len(r.reads) != 2 || r.reads[0].Namespace != "a" || r.reads[1].Namespace != "b" {
		t.Errorf("reads %v, want one per namespace in order", r.reads)
	}
	if !strings.Contains(res.Report.Verdict.Headline, "(a, b)") {
		t.Errorf("headline %q should name the namespaces searched", res.Report.Verdict.Headline)
	}
}

func TestExplainReadErrorStops(t *testing.T) {
	boom := errors.New("boom")
	r := &fakeReader{nss: rbac.Namespaces{Names: []string{"a", "b"}}, err: boom}
	_, err := (&Explainer{Reader: r}).Explain(t.Context(), rbac.Identity{User: "u"}, Question{Name: "x"})
	if !errors.Is(err, boom) || len(r.reads) != 1 {
		t.Errorf("err %v after %d reads; want the read error after the first read", err, len(r.reads))
	}
}

func TestIdentityKey(t *testing.T) {
	a := identityKey(rbac.Identity{User: "a", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"k": {"v"}}})
	b := identityKey(rbac.Identity{User: "a", Groups: []string{"g1g2"}, Extra: map[string][]string{"k": {"v"}}})
	c := identityKey(rbac.Identity{User: "a", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"k": {"w"}}})
	if a == b || a == c || b == c {
		t.Errorf("identity keys collide: %q %q %q", a, b, c)
	}
	if a != identityKey(rbac.Identity{User: "a", Groups: []string{"g1", "g2"}, Extra: map[string][]string{"k": {"v"}}}) {
		t.Error("identity key is not stable")
	}
}
