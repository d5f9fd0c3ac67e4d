package blocks

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// fitEmoji marks each answer of a check.
var fitEmoji = map[diagnose.Fit]string{
	diagnose.FitAdmittedNow: "✅",
	diagnose.FitWaits:       "⏳",
	diagnose.FitNever:       "⛔",
	diagnose.FitUnknown:     "❔",
}

// fitWords says a Fit for people.
func fitWords(f diagnose.Fit) string {
	switch f {
	case diagnose.FitAdmittedNow:
		return "admitted now"
	case diagnose.FitWaits:
		return "would wait"
	case diagnose.FitNever:
		return "never, as it is"
	}
	return "cannot tell"
}

// WillItFit renders the answer to the "Will this fit?" shortcut (and
// `kueuebot check` in Slack): a header, the pod sets Kueue would count,
// then one section per LocalQueue checked with its answer, what holds it,
// the estimate for a wait ("no estimate" until the estimator fills it) and
// what to do. Everything from the manifest or the cluster is escaped; the
// result is Fit.
func WillItFit(r *diagnose.CheckReport) Message {
	t := r.Target
	header := fmt.Sprintf("Will %s/%s fit?", strings.ToLower(t.Kind), t.Name)
	bl := []slack.Block{slack.NewHeaderBlock(plain(truncate(header, MaxHeaderText)))}
	var summary []string
	for _, q := range r.Queues {
		summary = append(summary, fmt.Sprintf("%s %sLocalQueue %s: *%s*", fitEmoji[q.Fit], fitCluster(r, q), Code(q.LocalQueue), fitWords(q.Fit)))
	}
	if len(summary) > 0 {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(strings.Join(summary, "\n")), nil, nil))
	}
	bl = append(bl, clusterBlocks(diagnose.Report{Cluster: r.Cluster, Clusters: r.Clusters}, i18n.English)...)
	for _, n := range r.Notes {
		bl = append(bl, slack.NewContextBlock("", mrkdwn(Paragraph(n))))
	}
	var pods []string
	for _, p := range r.PodSets {
		pods = append(pods, fmt.Sprintf("• pod set %s: %d × %s", Code(p.Name), p.Count, Line(resourceText(p))))
	}
	if len(pods) > 0 {
		text := "*Pod sets, as Kueue would count them* (in namespace " + Code(t.Namespace) + ")\n" + strings.Join(pods, "\n")
		adj := append(append(slices.Clone(r.Adjustments.LimitRangeDefaults), r.Adjustments.Overhead...), r.Adjustments.LimitRangeViolations...)
		for _, rc := range r.Adjustments.UnknownRuntimeClasses {
			adj = append(adj, "RuntimeClass "+rc+" could not be read: its pod overhead is not counted")
		}
		for _, a := range adj {
			text += "\n_" + Line(a) + "_"
		}
		bl = append(bl, slack.NewSectionBlock(mrkdwn(text), nil, nil))
	}
	for _, q := range r.Queues {
		bl = append(bl, slack.NewDividerBlock())
		text := fmt.Sprintf("%s %s*%s*", fitEmoji[q.Fit], fitCluster(r, q), Line(q.Headline))
		if q.Detail != "" {
			text += "\n" + Paragraph(q.Detail)
		}
		if q.Fit == diagnose.FitWaits {
			est := "no estimate"
			if q.Estimate != nil {
				est = q.Estimate.Phrase()
			}
			text += "\n*Estimated start:* " + Line(est)
		}
		bl = append(bl, slack.NewSectionBlock(mrkdwn(text), nil, nil))
		var todo []string
		for _, m := range q.Remedies {
			s := fmt.Sprintf("• _%s_ %s", m.Who, Paragraph(m.Summary))
			if m.Command != "" {
				s += "\n" + CodeBlock(m.Command)
			}
			todo = append(todo, s)
		}
		if len(todo) > 0 {
			bl = append(bl, slack.NewSectionBlock(mrkdwn("*What to do*\n"+strings.Join(todo, "\n")), nil, nil))
		}
		var gaps []string
		for _, g := range append(slices.Clone(q.Gaps), r.Gaps...) {
			gaps = append(gaps, fmt.Sprintf("%s %s: %s", g.Kind, g.Name, g.Reason))
		}
		if len(gaps) > 0 {
			bl = append(bl, slack.NewContextBlock("", mrkdwn("⚠️ I could not read: "+Line(strings.Join(gaps, "; ")))))
		}
	}
	return Message{Text: truncate(Line(header+" "+strings.Join(fitTexts(r), ", ")), MaxFallbackText), Blocks: Fit(bl, "The full answer: `kueuebot check -f FILE`.")}
}

func fitTexts(r *diagnose.CheckReport) []string {
	out := make([]string, 0, len(r.Queues))
	for _, q := range r.Queues {
		out = append(out, q.LocalQueue+": "+fitWords(q.Fit))
	}
	return out
}

func resourceText(p diagnose.PlannedPodSet) string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(p.PerPod)) {
		parts = append(parts, diagnose.FormatQuantity(p.PerPod[r])+" "+string(r))
	}
	if len(parts) == 0 {
		return "no requests"
	}
	return strings.Join(parts, ", ")
}

// fitCluster names a queue's cluster when the manifest was checked in
// several ("`gpu-west` · "), "" otherwise.
func fitCluster(r *diagnose.CheckReport, q diagnose.QueueCheck) string {
	if q.Cluster == "" || r.Cluster != "" {
		return ""
	}
	return Code(q.Cluster) + " · "
}
