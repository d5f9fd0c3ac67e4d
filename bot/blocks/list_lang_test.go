package blocks

import (
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// TestJobListInEachLanguage: "my jobs" and the App Home tab hold no
// English prose in French, Japanese or Chinese: headers, where the jobs
// were looked for, counts, the picker, the footer.
func TestJobListInEachLanguage(t *testing.T) {
	r := translatedReport()
	jobs := []diagnose.Report{r, r}
	jobs[1].Target.Name = "train-8"
	// An estimate: "starts in 20-45 min" in the list's language.
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	lo, likely, hi := at.Add(20*time.Minute), at.Add(30*time.Minute), at.Add(45*time.Minute)
	jobs[1].Estimate = &diagnose.Estimate{At: at, Earliest: &lo, Likely: &likely, Latest: &hi}
	verbatim := append(r.Verdict.HeadlineMsg.Verbatims(), "team-a", "train-8", string(r.Verdict.Code))
	for _, l := range i18n.All() {
		opts := ListOptions{Namespaces: []string{"team-a", "team-b"}, Lang: l}
		list := Text(JobList(jobs, opts).Blocks)
		home := Text(HomeView(jobs, opts).Blocks.BlockSet)
		none := Text(JobList(nil, opts).Blocks)
		if want := tr(l, "blocks.list.header", i18n.Num(2)); !strings.Contains(list, want) {
			t.Errorf("%s: the list lacks %q:\n%s", l, want, list)
		}
		if want := i18n.Render(l, r.Verdict.HeadlineMsg); !strings.Contains(list, want) || !strings.Contains(home, want) {
			t.Errorf("%s: the headline is not in %s:\n%s\n%s", l, l, list, home)
		}
		if want := render.EstimateShortIn(l, jobs[1].Estimate); !strings.Contains(list, want) {
			t.Errorf("%s: the estimate is not %q:\n%s", l, want, list)
		}
		if l == i18n.English {
			continue
		}
		for _, s := range []string{list, home, none} {
			i18ntest.AssertTranslated(t, l, s, append(verbatim, "team-b", "/kueue jobs -n NAMESPACE", "/kueue help", "kueuebot diagnose NAME -n NAMESPACE", "kubectl")...)
		}
	}
}

// TestQueueListInEachLanguage: `/kueue queues` in French, Japanese and
// Chinese holds no English prose.
func TestQueueListInEachLanguage(t *testing.T) {
	q := diagnose.QueueSummary{Namespace: "team-a", Name: "lq-a", ClusterQueue: "cq-gpu", State: diagnose.QueueActive,
		Pending: 3, Admitted: 1, Reserved: 1, WithoutWorkload: 2, OldestWait: 95 * time.Minute}
	for _, l := range i18n.All()[1:] {
		got := Text(QueueListIn([]diagnose.QueueSummary{q}, []string{"team-a"}, l).Blocks)
		if want := tr(l, "blocks.queues.title"); !strings.Contains(got, want) {
			t.Errorf("%s: no %q:\n%s", l, want, got)
		}
		i18ntest.AssertTranslated(t, l, got, "team-a/lq-a", "cq-gpu", "ClusterQueue")
		none := Text(QueueListIn(nil, nil, l).Blocks)
		i18ntest.AssertTranslated(t, l, none, "kueue.x-k8s.io/queue-name")
	}
}
