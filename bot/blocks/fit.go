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
		summary = append(summary, fmt.Sprintf("%s LocalQueue %s%s *%s*", fitEmoji[q.Fit], Code(q.LocalQueue), colon(l), fitWords(l, q.Fit)))
	}
	if len(summary) > 0 {
		bl = append(bl, slack.NewSectionBlock(mrkdwn(strings.Join(summary, "\n")), nil, nil))
	}
	for _, n := range r.Notes {
		bl = append(bl, slack.NewContextBlock("", mrkdwn(Paragraph(n))))
	}
	var pods []string
	for _, p := range r.PodSets {
		pods = append(pods, "• "+tr(l, "blocks.fit.podSet", i18n.Verbatim(Code(p.Name)), i18n.Verbatim(fmt.Sprint(p.Count)), i18n.Verbatim(Line(resourceText(l, p)))))
	}
	if len(pods) > 0 {
		text := tr(l, "blocks.fit.podSets", i18n.Verbatim(Code(t.Namespace))) + "\n" + strings.Join(pods, "\n")
		adj := append(append(slices.Clone(r.Adjustments.LimitRangeDefaults), r.Adjustments.Overhead...), r.Adjustments.LimitRangeViolations...)
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
		text := fmt.Sprintf("%s *%s*", fitEmoji[q.Fit], Line(q.HeadlineIn(l)))
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

// Catalog entries of the "Will this fit?" answer.
var _ = i18n.Register(
	i18n.Entry{ID: "blocks.fit.now", En: "admitted now", Fr: "admis maintenant", Ja: "今すぐアドミット", Zh: "立即准入"},
	i18n.Entry{ID: "blocks.fit.waits", En: "would wait", Fr: "attendrait", Ja: "待機することになる", Zh: "需要等待"},
	i18n.Entry{ID: "blocks.fit.never", En: "never, as it is", Fr: "jamais, en l’état", Ja: "このままではアドミットされない", Zh: "按现状永不准入"},
	i18n.Entry{ID: "blocks.fit.unknown", En: "cannot tell", Fr: "impossible à dire", Ja: "判断できない", Zh: "无法判断"},
	i18n.Entry{ID: "blocks.fit.header", Args: []i18n.Kind{i18n.KindObject},
		En: "Will %[1]s fit?", Fr: "%[1]s tiendra-t-il ?", Ja: "%[1]s は収まるか", Zh: "%[1]s 能否容纳？"},
	i18n.Entry{ID: "blocks.fit.podSet", Args: []i18n.Kind{i18n.KindVerbatim, i18n.KindVerbatim, i18n.KindVerbatim},
		En: "pod set %[1]s: %[2]s × %[3]s", Fr: "pod set %[1]s : %[2]s × %[3]s", Ja: "Pod セット %[1]s：%[2]s × %[3]s", Zh: "Pod 集 %[1]s：%[2]s × %[3]s"},
	i18n.Entry{ID: "blocks.fit.podSets", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "*Pod sets, as Kueue would count them* (in namespace %[1]s)",
		Fr: "*Pod sets, tels que Kueue les compterait* (dans le namespace %[1]s)",
		Ja: "*Pod セット（Kueue が数える値）*（Namespace %[1]s）",
		Zh: "*Pod 集（按 Kueue 的计算方式）*（命名空间 %[1]s）"},
	i18n.Entry{ID: "blocks.fit.unknownRC", Args: []i18n.Kind{i18n.KindObject},
		En: "RuntimeClass %[1]s could not be read: its pod overhead is not counted",
		Fr: "La RuntimeClass %[1]s n’a pas pu être lue : son overhead de Pod n’est pas compté",
		Ja: "RuntimeClass %[1]s を読み取れませんでした：その Pod のオーバーヘッドは計算に含まれていません",
		Zh: "无法读取 RuntimeClass %[1]s：未计入其 Pod 开销"},
	i18n.Entry{ID: "blocks.fit.noEstimate", En: "no estimate", Fr: "pas d’estimation", Ja: "見込みなし", Zh: "无法预估"},
	i18n.Entry{ID: "blocks.fit.estimate", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "*Estimated start:* %[1]s", Fr: "*Démarrage estimé :* %[1]s", Ja: "*開始見込み：* %[1]s", Zh: "*预计开始：* %[1]s"},
	i18n.Entry{ID: "blocks.fit.whatToDo", En: "What to do", Fr: "Que faire", Ja: "対処法", Zh: "怎么办"},
	i18n.Entry{ID: "blocks.fit.who.you", En: "you", Fr: "vous", Ja: "あなた", Zh: "你"},
	i18n.Entry{ID: "blocks.fit.who.platform", En: "platform team", Fr: "équipe plateforme", Ja: "プラットフォームチーム", Zh: "平台团队"},
	i18n.Entry{ID: "blocks.fit.couldNotRead", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I could not read: %[1]s", Fr: "Je n’ai pas pu lire : %[1]s", Ja: "読み取れなかったもの：%[1]s", Zh: "我无法读取：%[1]s"},
	i18n.Entry{ID: "blocks.fit.more", En: "The full answer: `kueuebot check -f FILE`.", Fr: "La réponse complète : `kueuebot check -f FILE`.", Ja: "回答の全文：`kueuebot check -f FILE`。", Zh: "完整回答：`kueuebot check -f FILE`。"},
	i18n.Entry{ID: "blocks.fit.noRequests", En: "no requests", Fr: "aucune request", Ja: "requests なし", Zh: "无 requests"},
)
