package render

import (
	"bytes"
	"strings"
	"testing"

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
