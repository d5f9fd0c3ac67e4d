package blocks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
)

// caseReport is a real report: one of the diagnose fixtures' golden
// outputs, produced by the analyzers from cluster objects.
type caseReport struct {
	name string
	r    diagnose.Report
}

// caseReports loads every diagnose golden report, sorted by case name.
func caseReports(t testing.TB) []caseReport {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "diagnose", "testdata", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no diagnose golden reports found")
	}
	slices.Sort(files)
	out := make([]caseReport, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r diagnose.Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, caseReport{name: strings.TrimSuffix(filepath.Base(f), ".json"), r: r})
	}
	return out
}

// everyCode is the verdict codes of diagnose/verdict.go.
var everyCode = []diagnose.Code{
	diagnose.CodeNotFound, diagnose.CodeNotManagedByKueue, diagnose.CodeWorkloadMissing,
	diagnose.CodeMisconfigured, diagnose.CodeOnHold, diagnose.CodeDeactivated,
	diagnose.CodeNoMatchingFlavor, diagnose.CodeExceedsMaxQuota, diagnose.CodeWaitingForQuota,
	diagnose.CodePendingEvaluation, diagnose.CodeWaitingForAdmissionChecks, diagnose.CodeRequeuing,
	diagnose.CodeAdmissionGated, diagnose.CodeWaitingForPodsReady, diagnose.CodeStarting,
	diagnose.CodePodsUnschedulable, diagnose.CodePodsNotStarting, diagnose.CodeRunning, diagnose.CodeFinished,
}

// TestAnswerGoldenEveryCode pins the compact answer (as an ephemeral
// answer, so with all three buttons) of one real report per verdict code.
func TestAnswerGoldenEveryCode(t *testing.T) {
	byCode := map[diagnose.Code]caseReport{}
	for _, c := range caseReports(t) {
		if _, ok := byCode[c.r.Verdict.Code]; !ok {
			byCode[c.r.Verdict.Code] = c
		}
	}
	for _, code := range everyCode {
		c, ok := byCode[code]
		if !ok {
			t.Errorf("no diagnose fixture has verdict %s", code)
			continue
		}
		t.Run(string(code), func(t *testing.T) {
			m := Answer(c.r, AnswerOptions{Shareable: true})
			if v := Check(m.Blocks); len(v) > 0 {
				t.Errorf("Check: %v", v)
			}
			checkGolden(t, filepath.Join("answer", string(code)+".json"), messageJSON(t, m))
		})
	}
}

func TestAnswerGoldenDetailed(t *testing.T) {
	tests := []struct {
		name string
		r    diagnose.Report
		opts AnswerOptions
	}{
		{"waiting_for_quota", waitingForQuota(), AnswerOptions{}},
		{"waiting_for_quota_detailed", waitingForQuota(), AnswerOptions{Detailed: true, Shareable: true}},
		{"waiting_for_quota_detailed_no_table", waitingForQuota(), AnswerOptions{Detailed: true, Options: Options{NoTable: true}}},
		{"not_found_no_buttons", notFound(), AnswerOptions{Shareable: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Answer(tt.r, tt.opts)
			if v := Check(m.Blocks); len(v) > 0 {
				t.Errorf("Check: %v", v)
			}
			checkGolden(t, filepath.Join("answer", tt.name+".json"), messageJSON(t, m))
			checkGolden(t, filepath.Join("answer", tt.name+".txt"), []byte(Text(m.Blocks)))
		})
	}
}

// actionsOf returns the answer's actions block, which must be its last.
func actionsOf(t *testing.T, m Message) *slack.ActionBlock {
	t.Helper()
	for i, b := range m.Blocks {
		if a, ok := b.(*slack.ActionBlock); ok {
			if i != len(m.Blocks)-1 {
				t.Errorf("actions block %d is not the last of %d", i, len(m.Blocks))
			}
			return a
		}
	}
	return nil
}

func buttonIDs(a *slack.ActionBlock) []string {
	if a == nil {
		return nil
	}
	var ids []string
	for _, e := range a.Elements.ElementSet {
		ids = append(ids, e.(*slack.ButtonBlockElement).ActionID)
	}
	return ids
}

// TestAnswerEveryCase runs every real report through every kind of answer
// and checks the limits, the buttons and their values.
func TestAnswerEveryCase(t *testing.T) {
	for _, c := range caseReports(t) {
		for _, opts := range []AnswerOptions{
			{}, {Shareable: true}, {Detailed: true}, {Detailed: true, Shareable: true},
			{Options: Options{NoTable: true}}, {Detailed: true, Options: Options{NoTable: true}},
		} {
			t.Run(fmt.Sprintf("%s/%+v", c.name, opts), func(t *testing.T) {
				m := Answer(c.r, opts)
				if v := Check(m.Blocks); len(v) > 0 {
					t.Errorf("Check: %v", v)
				}
				if m.Text == "" {
					t.Error("no fallback text")
				}
				ref, hasRef := ReportRef(c.r)
				a := actionsOf(t, m)
				if !hasRef {
					if a != nil {
						t.Errorf("buttons on a report without a job: %v", buttonIDs(a))
					}
					return
				}
				want := []string{ActionRefresh}
				if !opts.Detailed && hasDetails(c.r) {
					want = append(want, ActionDetails)
				}
				if opts.Shareable {
					want = append(want, ActionShare)
				}
				if diff := cmp.Diff(want, buttonIDs(a)); diff != "" {
					t.Errorf("buttons (-want +got):\n%s", diff)
				}
				wantBlock := BlockAnswer
				if opts.Detailed {
					wantBlock = BlockAnswerDetailed
				}
				if a.BlockID != wantBlock {
					t.Errorf("actions block_id %q, want %q", a.BlockID, wantBlock)
				}
				for _, e := range a.Elements.ElementSet {
					btn := e.(*slack.ButtonBlockElement)
					got, err := ParseJobRef(btn.Value)
					if err != nil || got != ref {
						t.Errorf("%s carries %q (%v), want %v", btn.ActionID, btn.Value, err, ref)
					}
				}
				text := Text(m.Blocks)
				detailsShown := strings.Contains(text, "*Evidence*") || strings.Contains(text, "*Quota*")
				if opts.Detailed != detailsShown && (len(c.r.Evidence) > 0 || len(c.r.Quota) > 0) {
					t.Errorf("Detailed=%v but details shown=%v", opts.Detailed, detailsShown)
				}
			})
		}
	}
}

func TestAnswerHostile(t *testing.T) {
	// A valid job name with markup everywhere else: buttons, and every
	// text escaped.
	r := hostile()
	r.Target.Name = "train-7"
	for _, opts := range []AnswerOptions{{Shareable: true}, {Detailed: true}} {
		t.Run(fmt.Sprintf("Detailed=%v", opts.Detailed), func(t *testing.T) {
			m := Answer(r, opts)
			if v := Check(m.Blocks); len(v) > 0 {
				t.Errorf("Check: %v", v)
			}
			checkNoMarkup(t, m)
			if a := actionsOf(t, m); a == nil {
				t.Error("no buttons")
			}
		})
	}
	// A name that is not a Kubernetes name cannot be put in a button.
	if a := actionsOf(t, Answer(hostile(), AnswerOptions{Shareable: true})); a != nil {
		t.Errorf("buttons carry a hostile name: %v", buttonIDs(a))
	}
}

// checkNoMarkup fails on unescaped mrkdwn in a message or view.
func checkNoMarkup(t *testing.T, m Message) {
	t.Helper()
	raw := string(messageJSON(t, m))
	var texts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "mrkdwn" {
				s, _ := v["text"].(string)
				texts = append(texts, s)
				if v["verbatim"] != true {
					t.Errorf("mrkdwn text not verbatim: %q", s)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var doc any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	walk(doc)
	for _, s := range append(texts, m.Text) {
		if strings.ContainsAny(s, "<>") {
			t.Errorf("unescaped < or > in %q", s)
		}
		if bareAmp(s) {
			t.Errorf("unescaped & in %q", s)
		}
		if strings.Count(s, "```")%2 != 0 {
			t.Errorf("unbalanced code fence in %q", s)
		}
	}
	for _, bad := range []string{"link_names", `"parse"`} {
		if strings.Contains(raw, bad) {
			t.Errorf("JSON contains %s", bad)
		}
	}
}

// TestAnswerHuge: whatever is cut, the buttons stay.
func TestAnswerHuge(t *testing.T) {
	r := waitingForQuota()
	for i := range 200 {
		r.Evidence = append(r.Evidence, diagnose.Evidence{Source: fmt.Sprintf("Pod/p-%d", i), Kind: "Event", Reason: "FailedScheduling", Message: strings.Repeat("0/40 nodes are available: insufficient nvidia.com/gpu. ", 8)})
		r.Quota = append(r.Quota, r.Quota[0])
		r.Remedies = append(r.Remedies, diagnose.Remedy{Summary: strings.Repeat("do something ", 30), Command: strings.Repeat("kubectl x ", 20)})
	}
	for _, opts := range []AnswerOptions{{Shareable: true}, {Detailed: true, Shareable: true}} {
		m := Answer(r, opts)
		if v := Check(m.Blocks); len(v) > 0 {
			t.Errorf("Detailed=%v: Check: %v", opts.Detailed, v)
		}
		a := actionsOf(t, m)
		if a == nil || !slices.Contains(buttonIDs(a), ActionShare) {
			t.Errorf("Detailed=%v: buttons lost: %v", opts.Detailed, buttonIDs(a))
		}
		if !strings.Contains(Text(m.Blocks), "more block") {
			t.Errorf("Detailed=%v: the cut is not said", opts.Detailed)
		}
	}
}

func TestAnswerCompactSaysWhatDetailsHold(t *testing.T) {
	r := waitingForQuota()
	text := Text(Answer(r, AnswerOptions{}).Blocks)
	for _, want := range []string{"*Show quota and evidence* for the quota comparison (3 rows), 2 pieces of evidence and 2 things I could not check.", "may be incomplete", "[Refresh] [Show quota and evidence]"} {
		if !strings.Contains(text, want) {
			t.Errorf("compact answer lacks %q:\n%s", want, text)
		}
	}
	for _, hidden := range []string{"*Evidence*", "*What I could not check*", "Pod set"} {
		if strings.Contains(text, hidden) {
			t.Errorf("compact answer shows %q", hidden)
		}
	}
	r.Quota, r.Evidence, r.Gaps = nil, nil, nil
	m := Answer(r, AnswerOptions{})
	if ids := buttonIDs(actionsOf(t, m)); !slices.Equal(ids, []string{ActionRefresh}) {
		t.Errorf("nothing to detail, buttons %v; want Refresh only", ids)
	}
	if strings.Contains(Text(m.Blocks), labelDetails) {
		t.Error("the note points at details there are none of")
	}
}

func TestJobRef(t *testing.T) {
	ref := JobRef{Namespace: "team-a", Kind: "Job", Name: "train-7"}
	if got := ref.String(); got != "team-a/Job/train-7" {
		t.Errorf("String() = %q", got)
	}
	for _, good := range []JobRef{ref, {"a", "JobSet", "x.y-1", ""}, {"ns", "Workload", "job-train-7-1a2b3", ""}, {"n", "LeaderWorkerSet", strings.Repeat("a", 253), ""}, {"team-a", "StatefulSet", "web", ""}, {"team-a", "Deployment", "web", ""}, {"team-a", "Job", "train-7", "gpu-west"}} {
		got, err := ParseJobRef(good.String())
		if err != nil || got != good {
			t.Errorf("ParseJobRef(%q) = %v, %v", good.String(), got, err)
		}
	}
	for _, bad := range []string{
		"", "team-a", "team-a/train-7", "team-a/Job/train-7/X", "team-a/Job/train-7/", "a/Job/b/c/d", "team-a/Job/train-7/gpu_west", "team-a/Job/", "/Job/train-7",
		"team-a/DaemonSet/web", "team-a/job/train-7", "team-a/ReplicaSet/web", "Team-A/Job/x",
		"team-a/Job/Train-7", "../Job/x", "team-a/Job/x y", "<!channel>/Job/x", "team-a/Job/<@U1>",
		"team-a/Job/" + strings.Repeat("a", 254), strings.Repeat("a", 64) + "/Job/x", "team-a/Job/trаin", "U123|alice/Job/x",
	} {
		if r, err := ParseJobRef(bad); err == nil {
			t.Errorf("ParseJobRef(%q) = %v, want an error", bad, r)
		}
	}
	if _, err := ParseJobRef("team-a/Pod/"); err == nil {
		t.Error("ParseJobRef accepted a damaged value")
	}
	if !AnswerDetailed(&slack.BlockAction{BlockID: BlockAnswerDetailed}) || AnswerDetailed(&slack.BlockAction{BlockID: BlockAnswer}) {
		t.Error("AnswerDetailed does not tell the blocks apart")
	}
}

func FuzzParseJobRef(f *testing.F) {
	f.Add("team-a/Job/train-7")
	f.Add("a/b/c")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseJobRef(s)
		if err != nil {
			return
		}
		if r.String() != s {
			t.Fatalf("ParseJobRef(%q) = %v, which renders as %q", s, r, r.String())
		}
		if strings.ContainsAny(s, "<>&|@ ") {
			t.Fatalf("ParseJobRef accepted %q", s)
		}
	})
}
