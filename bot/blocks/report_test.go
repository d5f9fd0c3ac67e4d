package blocks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/internal/golden"
)

// checkGolden compares got with testdata/name (go test -update rewrites it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func messageJSON(t *testing.T, m Message) []byte {
	t.Helper()
	// Not HTML-escaped, so that the goldens show what Slack will parse.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func qp(s string) *resource.Quantity { v := resource.MustParse(s); return &v }

func i32(v int32) *int32 { return &v }

var estimateAt = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

// withEstimate gives r an estimate: in 20-45 min, most likely 30.
func withEstimate(r diagnose.Report) diagnose.Report {
	lo, likely, hi := estimateAt.Add(20*time.Minute), estimateAt.Add(30*time.Minute), estimateAt.Add(45*time.Minute)
	r.Estimate = &diagnose.Estimate{At: estimateAt, Earliest: &lo, Likely: &likely, Latest: &hi,
		Basis: "3 running workloads (3 with limits), 14 finished in the last 24h, 2 ahead in ClusterQueue cq-gpu, cohort research"}
	return r
}

// withNoEstimate gives r an estimate that has no figures, and why.
func withNoEstimate(r diagnose.Report) diagnose.Report {
	r.Estimate = &diagnose.Estimate{At: estimateAt, NoEstimate: "2 running workloads have no limit (maximumExecutionTimeSeconds, activeDeadlineSeconds) and its queue has no finished workloads to learn from (team-b/big-1, team-b/big-2)"}
	return r
}

func waitingForQuota() diagnose.Report {
	return diagnose.Report{
		Verdict: diagnose.Verdict{
			Stage:    diagnose.StageAdmission,
			Code:     diagnose.CodeWaitingForQuota,
			Cause:    diagnose.CauseQuotaInUse,
			Headline: "train-7 waits for 4 GPUs that other jobs in cq-gpu hold",
			Detail:   "The job asks for 8 nvidia.com/gpu in flavor a100. ClusterQueue cq-gpu has 16 nominal and may borrow 8 from cohort research; 20 are in use, so 4 are free now.",
		},
		Target: diagnose.TargetInfo{Kind: "JobSet", Namespace: "team-a", Name: "train-7", Workload: "jobset-train-7-3f2a1"},
		Queue: diagnose.QueueInfo{
			LocalQueue: "team-a", ClusterQueue: "cq-gpu", Cohort: "research",
			PositionInLocalQueue: i32(0), PositionInClusterQueue: i32(2),
		},
		Quota: []diagnose.QuotaRow{
			{
				PodSet: "workers", Flavor: "a100", Resource: "nvidia.com/gpu",
				Requested: q("8"), Nominal: q("16"), BorrowingLimit: qp("8"), Reserved: q("20"),
				Available: q("4"), MaxCapacity: q("24"), FitsEver: true, ShortBy: qp("4"), Eligible: true,
			},
			{
				PodSet: "workers", Flavor: "a100", Resource: "cpu",
				Requested: q("64"), Nominal: q("256"), Reserved: q("100"),
				Available: q("156"), MaxCapacity: q("256"), FitsNow: true, FitsEver: true, Eligible: true,
			},
			{
				PodSet: "workers", Flavor: "h100", Resource: "nvidia.com/gpu",
				Requested: q("8"), Nominal: q("8"), Available: q("8"), MaxCapacity: q("8"),
				Eligible: false, Ineligible: "untolerated taint gpu=h100:NoSchedule", Partial: true,
			},
		},
		Findings: []diagnose.Finding{
			{Code: "QuotaInUse", Severity: diagnose.SeverityBlocker, Message: "4 of the 8 GPUs are free in a100 now."},
			{Code: "Borrowing", Severity: diagnose.SeverityInfo, Message: "cq-gpu already borrows 4 GPUs from cohort research."},
		},
		Remedies: []diagnose.Remedy{
			{Code: "Wait", Summary: "Wait: you are first in team-a; the next finishing job frees GPUs.", Who: diagnose.WhoYou},
			{Code: "Shrink", Summary: "Ask for 4 GPUs instead of 8 to start now.", Who: diagnose.WhoYou, Command: "kubectl -n team-a patch jobset train-7 --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/replicatedJobs/0/replicas\",\"value\":2}]'"},
			{Code: "RaiseQuota", Summary: "Raise nominal quota of cq-gpu for a100.", Who: diagnose.WhoPlatform},
		},
		Gaps: []diagnose.Gap{
			{Kind: "ClusterQueue", Name: "cq-other", Reason: diagnose.GapForbidden, Message: "clusterqueues.kueue.x-k8s.io \"cq-other\" is forbidden"},
			{Kind: "Position", Reason: diagnose.GapUnavailable},
		},
		Evidence: []diagnose.Evidence{
			{Source: "Workload/jobset-train-7-3f2a1", Kind: "Condition", Reason: "Pending", Message: "couldn't assign flavors to pod set workers: insufficient unused quota for nvidia.com/gpu in flavor a100, 4 more needed", Age: "12m"},
			{Source: "JobSet/train-7", Kind: "Event", Reason: "Suspended", Message: "jobset suspended", Count: 5, Span: "30m", Age: "1m"},
		},
	}
}

func notFound() diagnose.Report {
	return diagnose.Report{
		Verdict: diagnose.Verdict{Stage: diagnose.StageResolve, Code: diagnose.CodeNotFound},
		Target:  diagnose.TargetInfo{Namespace: "team-a", Name: "nope"},
	}
}

// hostile carries markup in every field that comes from the cluster.
func hostile() diagnose.Report {
	const evil = "<!channel> <@U1> <!subteam^S1|@ops> a&b ```evil``` `tick` <https://evil.example|click>"
	r := waitingForQuota()
	r.Verdict.Headline = "job " + evil
	r.Verdict.Detail = "detail " + evil
	r.Target.Name = "name" + evil
	r.Target.Workload = "wl" + evil
	r.Queue.LocalQueue = "lq" + evil
	r.Quota[0].PodSet = "ps" + evil
	r.Quota[2].Ineligible = "taint " + evil
	r.Findings[0].Message = "finding " + evil
	r.Remedies[1].Summary = "remedy " + evil
	r.Remedies[1].Command = "kubectl get " + evil
	r.Gaps[0].Name = "gap" + evil
	r.Gaps[0].Message = "gap message " + evil
	r.Evidence[0].Message = "condition message " + evil
	r.Evidence[0].Reason = "Reason" + evil
	r.Evidence[1].Source = "src" + evil
	return r
}

func TestReportGolden(t *testing.T) {
	tests := []struct {
		name string
		r    diagnose.Report
		opts Options
	}{
		{"waiting_for_quota", waitingForQuota(), Options{}},
		{"waiting_for_quota_no_table", waitingForQuota(), Options{NoTable: true}},
		{"not_found", notFound(), Options{}},
		{"hostile", hostile(), Options{}},
		{"waiting_with_estimate", withEstimate(waitingForQuota()), Options{}},
		{"waiting_no_estimate", withNoEstimate(waitingForQuota()), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Report(tt.r, tt.opts)
			if v := Check(m.Blocks); len(v) > 0 {
				t.Errorf("Check: %v", v)
			}
			checkGolden(t, tt.name+".json", messageJSON(t, m))
			checkGolden(t, tt.name+".txt", []byte(Text(m.Blocks)))
		})
	}
}

// mrkdwnTexts collects every mrkdwn text object in a message, and the
// plain texts separately.
func mrkdwnTexts(t *testing.T, m Message) (md []*slack.TextBlockObject, plainTexts []string, cells []string) {
	t.Helper()
	add := func(o *slack.TextBlockObject) {
		if o == nil {
			return
		}
		if o.Type == slack.MarkdownType {
			md = append(md, o)
		} else {
			plainTexts = append(plainTexts, o.Text)
		}
	}
	for _, b := range m.Blocks {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			add(b.Text)
		case *slack.SectionBlock:
			add(b.Text)
			for _, f := range b.Fields {
				add(f)
			}
		case *slack.ContextBlock:
			for _, e := range b.ContextElements.Elements {
				if o, ok := e.(*slack.TextBlockObject); ok {
					add(o)
				}
			}
		case *slack.TableBlock:
			for _, r := range b.Rows {
				for _, c := range r {
					cells = append(cells, cellText(c))
				}
			}
		case *slack.DividerBlock:
		default:
			t.Fatalf("unexpected block %T", b)
		}
	}
	return md, plainTexts, cells
}

// bareAmp reports an & that does not start one of the three entities.
func bareAmp(s string) bool {
	return strings.Contains(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(s), "&")
}

func TestReportNeutralisesMarkup(t *testing.T) {
	for _, opts := range []Options{{}, {NoTable: true}} {
		t.Run(fmt.Sprintf("NoTable=%v", opts.NoTable), func(t *testing.T) {
			m := Report(hostile(), opts)
			md, _, _ := mrkdwnTexts(t, m)
			all := append([]string{m.Text}, func() []string {
				var s []string
				for _, o := range md {
					s = append(s, o.Text)
				}
				return s
			}()...)
			for _, o := range md {
				if !o.Verbatim {
					t.Errorf("mrkdwn text not verbatim: %q", o.Text)
				}
			}
			for _, s := range all {
				if strings.ContainsAny(s, "<>") {
					t.Errorf("unescaped < or > in %q", s)
				}
				if bareAmp(s) {
					t.Errorf("unescaped & in %q", s)
				}
				if strings.Count(s, "```")%2 != 0 {
					t.Errorf("unbalanced code fence in %q", s)
				}
				if strings.Contains(s, "```evil") {
					t.Errorf("hostile code fence survived in %q", s)
				}
			}
			raw := string(messageJSON(t, m))
			for _, bad := range []string{"link_names", `"parse"`} {
				if strings.Contains(raw, bad) {
					t.Errorf("message JSON contains %s", bad)
				}
			}
			// The escaped forms must be there: the text is shown, not dropped.
			if !strings.Contains(raw, "&lt;!channel&gt;") || !strings.Contains(raw, "a&amp;b") {
				t.Errorf("escaped hostile text missing from the message")
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	tests := map[int32]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"}
	for n, want := range tests {
		t.Run(want, func(t *testing.T) {
			if got := ordinal(n); got != want {
				t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
			}
		})
	}
}

func TestMoreHint(t *testing.T) {
	tests := []struct {
		name string
		in   diagnose.TargetInfo
		want string
	}{
		{"full", diagnose.TargetInfo{Kind: "JobSet", Namespace: "team-a", Name: "train-7"}, "kueuebot diagnose jobset/train-7 -n team-a -o text"},
		{"name only", diagnose.TargetInfo{Name: "train-7"}, "kueuebot diagnose train-7 -o text"},
		{"empty", diagnose.TargetInfo{}, "kueuebot diagnose NAME -o text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, MoreHint(tt.in)); diff != "" {
				t.Errorf("MoreHint (-want +got):\n%s", diff)
			}
		})
	}
}
