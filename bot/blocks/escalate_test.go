package blocks

import (
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/diagnose"
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
