package blocks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/internal/golden"
)

var digestNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// sampleDigest is a small digest with a hostile name in it.
func sampleDigest(pending int) *digest.Digest {
	cq := &kueue.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: kueue.ClusterQueueSpec{ResourceGroups: []kueue.ResourceGroup{{
			CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
			Flavors: []kueue.FlavorQuotas{{Name: "a100", Resources: []kueue.ResourceQuota{
				{Name: "nvidia.com/gpu", NominalQuota: resource.MustParse("8")},
			}}},
		}}},
		Status: kueue.ClusterQueueStatus{FlavorsReservation: []kueue.FlavorUsage{{Name: "a100", Resources: []kueue.ResourceUsage{
			{Name: "nvidia.com/gpu", Total: resource.MustParse("6")},
		}}}},
	}
	lq := &kueue.LocalQueue{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gpu"}, Spec: kueue.LocalQueueSpec{ClusterQueue: "gpu"}}
	var items []digest.Item
	var wls []*kueue.Workload
	for i := range pending {
		code, cause := diagnose.CodeWaitingForQuota, diagnose.CauseQuotaInUse
		switch i % 5 {
		case 3:
			code, cause = diagnose.CodeExceedsMaxQuota, ""
		case 4:
			code, cause = diagnose.CodeOnHold, diagnose.CauseLocalQueueStopped
		}
		name := fmt.Sprintf("train-%03d", i)
		if i == 1 {
			name = "<!channel>*boom*"
		}
		wait := time.Duration(i+1) * 7 * time.Hour
		items = append(items, digest.Item{
			Namespace: "team-a", Kind: "Job", Name: name, Workload: "job-" + name, LocalQueue: "gpu", ClusterQueue: "gpu",
			Code: code, Cause: cause, Headline: "waits", Wait: wait, WaitSeconds: int64(wait / time.Second),
			Who: []diagnose.Who{diagnose.WhoYou, diagnose.WhoPlatform}, Remedy: "Run it smaller: parallelism 2 fits.",
		})
		wls = append(wls, &kueue.Workload{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "job-" + name, CreationTimestamp: metav1.NewTime(digestNow.Add(-wait))},
			Spec:       kueue.WorkloadSpec{QueueName: "gpu"},
		})
	}
	prev := &digest.Figures{At: digestNow.Add(-24 * time.Hour), Totals: digest.Totals{Pending: 2}, ByCode: map[diagnose.Code]int{diagnose.CodeWaitingForQuota: 2},
		Queues: map[string]int{"ClusterQueue gpu": 2}}
	return digest.Compute(digest.Input{
		Name: "team-a", Now: digestNow, Pending: items, Previous: prev, Options: digest.Options{TopN: 3},
		Objects: diagnose.Objects{ClusterQueues: []*kueue.ClusterQueue{cq}, LocalQueues: []*kueue.LocalQueue{lq}, Workloads: wls},
	})
}

func TestDigestMessages(t *testing.T) {
	main, replies := DigestMessages(sampleDigest(6), "kueuebot digest --name team-a -o json")
	var text strings.Builder
	text.WriteString(Text(main.Blocks))
	for _, r := range replies {
		text.WriteString("\n--- thread ---\n" + Text(r.Blocks))
	}
	golden.Check(t, filepath.Join("testdata", "digest", "team-a.txt"), []byte(text.String()))
	all, err := json.MarshalIndent(map[string]any{"message": main, "thread": replies}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "digest", "team-a.json"), append(all, '\n'))
	if strings.Contains(string(all), "<!channel>") {
		t.Error("a job name reached Slack unescaped")
	}
	for _, want := range []string{"6 pending", "ClusterQueue gpu", "▓▓▓▓▓▓▓░░░ 75%", "WaitingForQuota", "Needs action", "job owner, platform team"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("digest lacks %q", want)
		}
	}
}

// A digest of thousands of workloads stays within Slack's limits: the
// channel message and every thread reply.
func TestDigestMessagesFitSlack(t *testing.T) {
	main, replies := DigestMessages(sampleDigest(3000), "kueuebot digest --name team-a -o json")
	if problems := Check(main.Blocks); len(problems) > 0 {
		t.Errorf("channel message: %v", problems)
	}
	if len(replies) == 0 || len(replies) > maxDigestReplies {
		t.Errorf("%d thread replies, want 1..%d", len(replies), maxDigestReplies)
	}
	for i, r := range replies {
		if problems := Check(r.Blocks); len(problems) > 0 {
			t.Errorf("reply %d: %v", i, problems)
		}
		if runeLen(r.Text) > MaxFallbackText {
			t.Errorf("reply %d: fallback text of %d characters", i, runeLen(r.Text))
		}
	}
	if !strings.Contains(Text(replies[1].Blocks), "… and ") {
		t.Errorf("a long list must be cut with a pointer to the CLI:\n%s", Text(replies[1].Blocks))
	}
}

// BenchmarkDigestMessages renders a 300-workload digest for Slack in each
// language (issue: any language within 10% of English).
func BenchmarkDigestMessages(b *testing.B) {
	d := sampleDigest(300)
	for _, l := range i18n.All() {
		b.Run(l.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = DigestMessagesIn(l, d, "kueuebot digest --name team-a -o json")
			}
		})
	}
}
