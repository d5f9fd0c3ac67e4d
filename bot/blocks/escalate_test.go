package blocks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/internal/golden"
)

// TestEscalationCarriesPlatformRemedies: what the answer leaves to the
// platform team reaches them with its command (the user could not run
// it), apart from what was suggested to the user; commands are escaped.
func TestEscalationCarriesPlatformRemedies(t *testing.T) {
	rep := diagnose.Report{
		Target: diagnose.TargetInfo{Kind: "Job", Namespace: "team-a", Name: "switched-off"},
		Verdict: diagnose.Verdict{Stage: diagnose.StageAdmission, Code: diagnose.CodeDeactivated, Cause: diagnose.CauseManual,
			Headline: "job/switched-off was deactivated."},
		Remedies: []diagnose.Remedy{
			{Code: "Reactivate", Who: diagnose.WhoPlatform, Summary: "Ask the platform team to reactivate the Workload.",
				Command: `kubectl patch workload job-switched-off-1 -n team-a --type=merge -p '{"spec":{"active":true}}' # <b>`},
			{Code: "Recreate", Who: diagnose.WhoYou, Summary: "Or delete and recreate the job yourself."},
		},
	}
	m := Escalation(rep, EscalationOptions{})
	md, _, _ := mrkdwnTexts(t, m)
	var all strings.Builder
	for _, o := range md {
		all.WriteString(o.Text + "\n")
	}
	text := all.String()
	platform, user := strings.Index(text, "*For the platform team*"), strings.Index(text, "*Already suggested to the user*")
	if platform < 0 || user < platform {
		t.Fatalf("want the platform team's remedies before the user's:\n%s", text)
	}
	for _, want := range []string{
		"```\nkubectl patch workload job-switched-off-1 -n team-a --type=merge -p '{\"spec\":{\"active\":true}}' # &lt;b&gt;\n```",
		"Or delete and recreate the job yourself. (you)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("escalation lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text[user:], "kubectl patch") {
		t.Errorf("the platform command is repeated among the user's suggestions:\n%s", text)
	}
}

// TestTriageInEachLanguage: the triage thread answers (summary, repeat)
// and the escalation summary with its button, in French, Japanese and
// Chinese, hold no English prose once codes, names and commands are set
// aside (golden files testdata/triage/LANG.txt); English is unchanged.
func TestTriageInEachLanguage(t *testing.T) {
	r := translatedReport()
	ref, _ := ReportRef(r)
	var verbatim []string
	verbatim = append(verbatim, r.Verdict.HeadlineMsg.Verbatims()...)
	for _, m := range r.Remedies {
		verbatim = append(verbatim, m.Command)
		verbatim = append(verbatim, m.SummaryMsg.Verbatims()...)
	}
	render := func(l i18n.Lang) string {
		actions := slack.NewActionBlock(BlockTriage, ExplainButton(l, ref), EscalateButton(l, ref))
		var b strings.Builder
		for _, m := range []Message{
			TriageSummary(l, r, "U012AB3CD", actions),
			TriageRepeat(l, r, "https://example.slack.com/archives/C1/p1", actions),
			Escalation(r, EscalationOptions{UserGroup: "S012AB3CD", By: "U012AB3CD", ThreadLink: "https://example.slack.com/archives/C1/p1", Lang: l}),
		} {
			b.WriteString(Text(m.Blocks) + "\n" + m.Text + "\n--- message ---\n")
		}
		b.WriteString(actionLabels(actions))
		return b.String()
	}
	en := render(i18n.English)
	for _, want := range []string{"I sent the full answer to <@U012AB3CD> privately. Anyone else can press *Explain it to me*", "and the verdict has not changed", "escalated by <@U012AB3CD>", "*For the platform team*"} {
		if !strings.Contains(en, want) {
			t.Errorf("English triage lacks %q:\n%s", want, en)
		}
	}
	for _, l := range i18n.All()[1:] {
		got := render(l)
		i18ntest.AssertTranslated(t, l, got, verbatim...)
		golden.Check(t, filepath.Join("testdata", "triage", l.String()+".txt"), []byte(got))
	}
}

// actionLabels lists the buttons' labels and confirmations.
func actionLabels(ab *slack.ActionBlock) string {
	var b strings.Builder
	for _, el := range ab.Elements.ElementSet {
		btn, ok := el.(*slack.ButtonBlockElement)
		if !ok {
			continue
		}
		b.WriteString("[" + btn.Text.Text + "]\n")
		if c := btn.Confirm; c != nil {
			b.WriteString(c.Title.Text + " / " + c.Text.Text + " / " + c.Confirm.Text + " / " + c.Deny.Text + "\n")
		}
	}
	return b.String()
}
