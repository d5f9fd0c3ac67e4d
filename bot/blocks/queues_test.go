package blocks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kueuebot/kueuebot/diagnose"
)

func TestUsageBar(t *testing.T) {
	for _, tc := range []struct {
		percent int
		want    string
	}{
		{-1, "no nominal quota"},
		{0, "░░░░░░░░░░ 0%"},
		{3, "▓░░░░░░░░░ 3%"},
		{60, "▓▓▓▓▓▓░░░░ 60%"},
		{100, "▓▓▓▓▓▓▓▓▓▓ 100%"},
		{150, "▓▓▓▓▓▓▓▓▓▓ 150%"},
	} {
		if got := UsageBar(tc.percent); got != tc.want {
			t.Errorf("UsageBar(%d) = %q, want %q", tc.percent, got, tc.want)
		}
	}
}

func TestQueueList(t *testing.T) {
	q := diagnose.QueueSummary{
		Kind: diagnose.QueueKindLocal, Namespace: "team-a", Name: "user-queue", ClusterQueue: "<!channel>",
		State: diagnose.QueueStopped, Pending: 3, Admitted: 1, WithoutWorkload: 2, OldestWait: 3*time.Hour + 20*time.Minute,
		NominalKnown: true,
		Usage:        []diagnose.ResourceUsage{{Flavor: "default", Resource: "cpu", Used: resource.MustParse("6"), Nominal: resource.MustParse("10"), Percent: 60}},
	}
	m := QueueList([]diagnose.QueueSummary{q}, []string{"team-a"})
	text := Text(m.Blocks)
	for _, want := range []string{"team-a/user-queue", "Stopped", "3 pending", "1 admitted", "oldest wait 3h 20m", "2 jobs have no Workload", "6 / 10", "▓▓▓▓▓▓░░░░ 60%"} {
		if !strings.Contains(text, want) {
			t.Errorf("queue list lacks %q:\n%s", want, text)
		}
	}
	if err := Check(m.Blocks); err != nil {
		t.Error(err)
	}
	raw := fmt.Sprint(m.Blocks)
	if strings.Contains(raw, "<!channel>") {
		t.Error("a queue name reached Slack unescaped")
	}

	unknown := q
	unknown.NominalKnown, unknown.Usage = false, []diagnose.ResourceUsage{{Flavor: "default", Resource: "cpu", Used: resource.MustParse("2"), Percent: -1}}
	if text := Text(QueueList([]diagnose.QueueSummary{unknown}, nil).Blocks); !strings.Contains(text, "could not read this queue's ClusterQueue") {
		t.Errorf("an unreadable ClusterQueue must be said:\n%s", text)
	}

	if text := Text(QueueList(nil, []string{"team-a"}).Blocks); !strings.Contains(text, "no LocalQueue in team-a") {
		t.Errorf("empty list: %s", text)
	}

	many := make([]diagnose.QueueSummary, 60)
	for i := range many {
		many[i] = q
		many[i].Name = fmt.Sprintf("q-%d", i)
	}
	mm := QueueList(many, nil)
	if err := Check(mm.Blocks); err != nil {
		t.Errorf("60 queues: %v", err)
	}
	if !strings.Contains(Text(mm.Blocks), "and 20 more queues") {
		t.Error("a capped list must count the rest")
	}
}
