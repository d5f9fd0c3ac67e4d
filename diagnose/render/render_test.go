package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": Text, "text": Text, "TEXT": Text, "md": Markdown, "markdown": Markdown, "json": JSON} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), "text, markdown or json") {
		t.Errorf("ParseFormat(yaml) error = %v, want the list of formats", err)
	}
}

// TestUntrustedStrings: names and messages from the cluster cannot break
// the Markdown table or inject markup.
func TestUntrustedStrings(t *testing.T) {
	r := &diagnose.Report{
		Verdict: diagnose.Verdict{Stage: diagnose.StageAdmission, Code: diagnose.CodeWaitingForQuota, Headline: "job <b>x</b> | *y*", Detail: "`rm -rf` _z_"},
		Quota:   []diagnose.QuotaRow{{PodSet: "a|b", Flavor: "<f>", Resource: "cpu"}},
	}
	md := MarkdownString(r)
	for _, bad := range []string{"<b>", "| *y*", "a|b", "<f>", " `rm", "| <none> |"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown contains unescaped %q:\n%s", bad, md)
		}
	}
	txt := TextString(r)
	if !strings.Contains(txt, "Gaps:\n  <none>") || !strings.Contains(txt, "Findings:\n  <none>") {
		t.Errorf("text output must say <none> for empty sections:\n%s", txt)
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	r := &diagnose.Report{Verdict: diagnose.Verdict{Code: diagnose.CodeRunning, Stage: diagnose.StageRunning, Headline: "h"}}
	for _, f := range []Format{Text, Markdown, JSON} {
		var a, b bytes.Buffer
		if err := Write(&a, f, r); err != nil {
			t.Fatal(err)
		}
		if err := Write(&b, f, r); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() || a.Len() == 0 {
			t.Errorf("format %s: output not deterministic or empty", f)
		}
	}
}

// TestEstimate: the estimate is shown in every format, as a range with
// its basis, or as "no estimate" with the reason; the JSON carries
// estimate:{earliest,likely,latest,basis}.
func TestEstimate(t *testing.T) {
	at := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	lo, likely, hi := at.Add(20*time.Minute), at.Add(30*time.Minute), at.Add(45*time.Minute)
	r := &diagnose.Report{
		Verdict:  diagnose.Verdict{Stage: diagnose.StageAdmission, Code: diagnose.CodeWaitingForQuota, Cause: diagnose.CauseQuotaInUse, Headline: "h"},
		Estimate: &diagnose.Estimate{At: at, Earliest: &lo, Likely: &likely, Latest: &hi, Basis: "3 running workloads (3 with limits), 14 finished in the last 24h, 2 ahead in ClusterQueue a"},
	}
	want := "in 20-45 min, most likely in 30 min"
	if txt := TextString(r); !strings.Contains(txt, "\nEstimated start: "+want+"\nBased on: 3 running workloads") {
		t.Errorf("text:\n%s", txt)
	}
	if md := MarkdownString(r); !strings.Contains(md, "**Estimated start:** "+want+" (based on 3 running workloads (3 with limits), 14 finished") {
		t.Errorf("markdown:\n%s", md)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Estimate map[string]any `json:"estimate"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"earliest": "2026-12-02T12:20:00Z", "likely": "2026-12-02T12:30:00Z", "latest": "2026-12-02T12:45:00Z", "basis": r.Estimate.Basis} {
		if got.Estimate[k] != v {
			t.Errorf("JSON estimate.%s = %v, want %v", k, got.Estimate[k], v)
		}
	}
	r.Estimate = &diagnose.Estimate{At: at, NoEstimate: "ClusterQueue a is stopped"}
	if txt := TextString(r); !strings.Contains(txt, "\nEstimated start: no estimate: ClusterQueue a is stopped\n") || strings.Contains(txt, "Based on") {
		t.Errorf("text without an estimate:\n%s", txt)
	}
	r.Estimate = nil
	if txt := TextString(r); strings.Contains(txt, "Estimated start") {
		t.Errorf("text shows an estimate the report does not have:\n%s", txt)
	}
}
