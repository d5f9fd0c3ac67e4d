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
func fitWords(l i18n.Lang, f diagnose.Fit) string {
	switch f {
	case diagnose.FitAdmittedNow:
		return tr(l, "blocks.fit.now")
	case diagnose.FitWaits:
		return tr(l, "blocks.fit.waits")
	case diagnose.FitNever:
		return tr(l, "blocks.fit.never")
	}
	return tr(l, "blocks.fit.unknown")
}

// WillItFit renders the answer to the "Will this fit?" shortcut in
// English (WillItFitIn).
func WillItFit(r *diagnose.CheckReport) Message { return WillItFitIn(r, i18n.English) }

// WillItFitIn renders the answer to the "Will this fit?" shortcut (and
// `kueuebot check` in Slack) in l: a header, the pod sets Kueue would
// count, then one section per LocalQueue checked with its answer, what
// holds it, the estimate for a wait ("no estimate" until the estimator
// fills it) and what to do. Everything from the manifest or the cluster is
// escaped; the result is Fit.
func WillItFitIn(r *diagnose.CheckReport, l i18n.Lang) Message {
	t := r.Target
	header := tr(l, "blocks.fit.header", i18n.Ref(strings.ToLower(t.Kind), t.Namespace, t.Name))
	bl := []slack.Block{slack.NewHeaderBlock(plain(truncate(header, MaxHeaderText)))}
	var summary []string
	for _, q := range r.Queues {
		summary = append(summary, fmt.Sprintf("%s %sLocalQueue %s%s *%s*", fitEmoji[q.Fit], fitCluster(r, q), Code(q.LocalQueue), colon(l), fitWords(l, q.Fit)))
	}
	if len(summary) > 0 {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(strings.Join(summary, "\n")), nil, nil))
	}
	bl = append(bl, clusterBlocks(diagnose.Report{Cluster: r.Cluster, Clusters: r.Clusters}, l)...)
	for _, n := range r.NotesIn(l) {
		bl = append(bl, slack.NewContextBlock("", mrkdwn(Paragraph(n))))
	}
	var pods []string
	for _, p := range r.PodSets {
		pods = append(pods, "• "+tr(l, "blocks.fit.podSet", i18n.Verbatim(Code(p.Name)), i18n.Verbatim(fmt.Sprint(p.Count)), i18n.Verbatim(Line(resourceText(l, p)))))
	}
	if len(pods) > 0 {
		text := tr(l, "blocks.fit.podSets", i18n.Verbatim(Code(t.Namespace))) + "\n" + strings.Join(pods, "\n")
		adj := append(append(r.Adjustments.LimitRangeDefaultsIn(l), r.Adjustments.OverheadIn(l)...), r.Adjustments.LimitRangeViolationsIn(l)...)
		for _, rc := range r.Adjustments.UnknownRuntimeClasses {
			adj = append(adj, tr(l, "blocks.fit.unknownRC", i18n.Obj("RuntimeClass", "", rc)))
		}
		for _, a := range adj {
			text += "\n_" + Line(a) + "_"
		}
		bl = append(bl, slack.NewSectionBlock(mrkdwn(text), nil, nil))
	}
	for _, q := range r.Queues {
		bl = append(bl, slack.NewDividerBlock())
		text := fmt.Sprintf("%s %s*%s*", fitEmoji[q.Fit], fitCluster(r, q), Line(q.HeadlineIn(l)))
		if d := q.DetailIn(l); d != "" {
			text += "\n" + Paragraph(d)
		}
		if q.Fit == diagnose.FitWaits {
			est := tr(l, "blocks.fit.noEstimate")
			if q.Estimate != nil {
				est = q.Estimate.PhraseIn(l)
			}
			text += "\n" + tr(l, "blocks.fit.estimate", i18n.Verbatim(Line(est)))
		}
		bl = append(bl, slack.NewSectionBlock(mrkdwn(text), nil, nil))
		var todo []string
		for _, m := range q.Remedies {
			s := fmt.Sprintf("• _%s_ %s", fitWho(l, m.Who), Paragraph(m.SummaryIn(l)))
			if m.Command != "" {
				s += "\n" + CodeBlock(m.Command)
			}
			todo = append(todo, s)
		}
		if len(todo) > 0 {
			bl = append(bl, slack.NewSectionBlock(mrkdwn("*"+tr(l, "blocks.fit.whatToDo")+"*\n"+strings.Join(todo, "\n")), nil, nil))
		}
		var gaps []string
		for _, g := range append(slices.Clone(q.Gaps), r.Gaps...) {
			gaps = append(gaps, fmt.Sprintf("%s %s%s %s", g.Kind, g.Name, colon(l), g.Reason))
		}
		if len(gaps) > 0 {
			sep := "; "
			if l == i18n.Japanese || l == i18n.Chinese {
				sep = "；"
			}
			bl = append(bl, slack.NewContextBlock("", mrkdwn("⚠️ "+tr(l, "blocks.fit.couldNotRead", i18n.Verbatim(Line(strings.Join(gaps, sep)))))))
		}
	}
	return Message{Text: truncate(Line(header+" "+strings.Join(fitTexts(l, r), ", ")), MaxFallbackText), Blocks: Fit(bl, tr(l, "blocks.fit.more"))}
}

// fitWho is who can act, in l (in English the Who value itself).
func fitWho(l i18n.Lang, w diagnose.Who) string {
	switch w {
	case diagnose.WhoYou:
		return tr(l, "blocks.fit.who.you")
	case diagnose.WhoPlatform:
		return tr(l, "blocks.fit.who.platform")
	}
	return string(w)
}

// colon ends a label: ":", French " :", Japanese and Chinese "：".
func colon(l i18n.Lang) string {
	switch l {
	case i18n.French:
		return " :"
	case i18n.Japanese, i18n.Chinese:
		return "："
	}
	return ":"
}

func fitTexts(l i18n.Lang, r *diagnose.CheckReport) []string {
	out := make([]string, 0, len(r.Queues))
	for _, q := range r.Queues {
		out = append(out, q.LocalQueue+colon(l)+" "+fitWords(l, q.Fit))
	}
	return out
}

func resourceText(l i18n.Lang, p diagnose.PlannedPodSet) string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(p.PerPod)) {
		parts = append(parts, diagnose.FormatQuantity(p.PerPod[r])+" "+string(r))
	}
	if len(parts) == 0 {
		return tr(l, "blocks.fit.noRequests")
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
