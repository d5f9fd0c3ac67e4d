package blocks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// Triage action and block IDs.
const (
	// ActionEscalate posts a compact summary of a triage answer in its
	// thread for the on-call platform team, re-read as whoever pressed it.
	ActionEscalate = "kueuebot_escalate"
	// BlockTriage is the actions block of a triage answer.
	BlockTriage = "kueuebot_triage"
)

// Limits of the escalation summary: it is meant to be read at a glance.
const (
	escalationEvidence = 3
	escalationRemedies = 3
)

var (
	reGroupID = regexp.MustCompile(`^S[A-Z0-9]{2,}$`)
	reUserID  = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
)

// EscalateButton is the "Escalate to the platform team" button of a
// triage answer; like every button it carries the JobRef only. Its
// confirmation says that the summary is posted for the whole channel.
func EscalateButton(l i18n.Lang, ref JobRef) *slack.ButtonBlockElement {
	b := slack.NewButtonBlockElement(ActionEscalate, ref.String(), plain(tr(l, "blocks.escalate.button")))
	b.Style = slack.StyleDanger
	b.Confirm = slack.NewConfirmationBlockObject(
		plain(tr(l, "blocks.escalate.confirm.title")),
		plain(tr(l, "blocks.escalate.confirm.text")),
		plain(tr(l, "blocks.escalate.confirm.ok")), plain(tr(l, "blocks.share.cancel")))
	return b
}

// ExplainButton is "Explain it to me" on a triage summary: the job read
// privately as whoever presses it.
func ExplainButton(l i18n.Lang, ref JobRef) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionPick, ref.String(), plain(tr(l, "blocks.triage.explain")))
}

// TriageSummary is the thread answer of a triage in summary mode: the
// verdict code and the headline, who asked, and that the full answer was
// sent to them privately; then extra (buttons), if any; in language l (the
// poster's).
func TriageSummary(l i18n.Lang, rep diagnose.Report, poster string, extra *slack.ActionBlock) Message {
	v := rep.Verdict
	s := "*" + Code(string(v.Code)) + "* " + Line(headlineIn(v, l))
	if rep.Target.Name != "" {
		s += " (" + Code(targetText(rep.Target)) + ")"
	}
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(s, MaxSectionText)), nil, nil)}
	if reUserID.MatchString(poster) {
		note := tr(l, "blocks.triage.sent", i18n.Verbatim("<@"+poster+">"))
		if extra != nil {
			note = i18n.Join(i18n.M("blocks.triage.sent", i18n.Verbatim("<@"+poster+">")), i18n.M("blocks.triage.anyone", i18n.M("blocks.triage.explain"))).In(l)
		}
		bl = append(bl, slack.NewContextBlock("", mrkdwn(note)))
	}
	if extra != nil {
		bl = append(bl, extra)
	}
	return Message{Text: fallbackText(rep, headlineIn(v, l)), Blocks: Fit(bl, "")}
}

// TriageRepeat is the thread answer when the same job was answered in the
// channel a moment ago with the same verdict: a link to that answer.
// link is the earlier answer's permalink (https) or empty; l the poster's
// language.
func TriageRepeat(l i18n.Lang, rep diagnose.Report, link string, extra *slack.ActionBlock) Message {
	v := rep.Verdict
	where := tr(l, "blocks.triage.earlier")
	if safeLink(link) {
		where = "<" + link + "|" + where + ">"
	}
	s := tr(l, "blocks.triage.repeat", i18n.Verbatim(Code(targetText(rep.Target))), i18n.Verbatim(where), i18n.Verbatim(Code(string(v.Code))), i18n.Verbatim(Line(headlineIn(v, l))))
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(s, MaxSectionText)), nil, nil)}
	if extra != nil {
		bl = append(bl, extra)
	}
	return Message{Text: fallbackText(rep, headlineIn(v, l)), Blocks: Fit(bl, "")}
}

// EscalationOptions says who escalates to whom and where.
type EscalationOptions struct {
	// UserGroup is the on-call Slack user group ID (S...), mentioned.
	UserGroup string
	// By is the Slack user who pressed the button (U...).
	By string
	// ThreadLink is the thread's permalink (https), or empty.
	ThreadLink string
	// Lang is the language of the summary (the channel's, config
	// triage.language).
	Lang i18n.Lang
}

// Escalation is the compact summary posted for the on-call team: the
// verdict, its cause, the job and its queues, the strongest evidence, what
// the answer leaves to the platform team (with its commands), the remedies
// already suggested to the user and a link to the thread. rep is read as the
// person who pressed the button, so it holds only what they may see.
func Escalation(rep diagnose.Report, o EscalationOptions) Message {
	l := o.Lang
	v := rep.Verdict
	who := tr(l, "blocks.escalate.team")
	if reGroupID.MatchString(o.UserGroup) {
		who = "<!subteam^" + o.UserGroup + ">"
	}
	var b strings.Builder
	if reUserID.MatchString(o.By) {
		b.WriteString(":rotating_light: " + tr(l, "blocks.escalate.by", i18n.Verbatim(who), i18n.Verbatim("<@"+o.By+">")) + "\n")
	} else {
		b.WriteString(":rotating_light: " + tr(l, "blocks.escalate.head", i18n.Verbatim(who)) + "\n")
	}
	fmt.Fprintf(&b, "*%s* %s\n", tr(l, "blocks.context.job"), Code(targetText(rep.Target)))
	fmt.Fprintf(&b, "*%s* %s: %s\n", tr(l, "blocks.context.verdict"), Code(string(v.Code)), Line(headlineIn(v, l)))
	if v.Cause != "" {
		fmt.Fprintf(&b, "*%s* %s\n", tr(l, "blocks.escalate.cause"), Code(string(v.Cause)))
	}
	if q := rep.Queue; q.LocalQueue != "" || q.ClusterQueue != "" {
		fmt.Fprintf(&b, "*%s* %s\n", tr(l, "blocks.context.queues"), tr(l, "blocks.escalate.queues", i18n.Verbatim(Code(q.LocalQueue)), i18n.Verbatim(Code(q.ClusterQueue))))
	}
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(strings.TrimSuffix(b.String(), "\n"), MaxSectionText)), nil, nil)}
	if len(rep.Evidence) > 0 {
		var items []string
		for i, e := range rep.Evidence {
			if i == escalationEvidence {
				items = append(items, tr(l, "blocks.escalate.more", i18n.Num(len(rep.Evidence)-i)))
				break
			}
			items = append(items, "• "+evidenceTextIn(e, l))
		}
		bl = append(bl, packSections("*"+tr(l, "blocks.section.evidence")+"*", items)...)
	}
	// What the answer left to the platform team comes first, with its
	// command: the user could not act on it, the on-call team can.
	var platform, user []diagnose.Remedy
	for _, r := range rep.Remedies {
		if r.Who == diagnose.WhoPlatform {
			platform = append(platform, r)
		} else {
			user = append(user, r)
		}
	}
	if len(platform) > 0 {
		var items []string
		for i, r := range platform {
			if i == escalationRemedies {
				items = append(items, tr(l, "blocks.escalate.more", i18n.Num(len(platform)-i)))
				break
			}
			it := "• " + Line(r.SummaryIn(l))
			if r.Command != "" {
				it += "\n" + CodeBlock(r.Command)
			}
			items = append(items, it)
		}
		bl = append(bl, packSections("*"+tr(l, "blocks.escalate.forPlatform")+"*", items)...)
	}
	if len(user) > 0 {
		var items []string
		for i, r := range user {
			if i == escalationRemedies {
				items = append(items, tr(l, "blocks.escalate.more", i18n.Num(len(user)-i)))
				break
			}
			items = append(items, "• "+Line(r.SummaryIn(l))+" ("+whoTextIn(r.Who, l)+")")
		}
		bl = append(bl, packSections("*"+tr(l, "blocks.escalate.suggested")+"*", items)...)
	}
	link := tr(l, "blocks.escalate.thisThread")
	if safeLink(o.ThreadLink) {
		link = tr(l, "blocks.escalate.thread", i18n.Verbatim("<"+o.ThreadLink+"|"+tr(l, "blocks.escalate.threadLink")+">"))
	}
	bl = append(bl, slack.NewContextBlock("", mrkdwn(link)))
	return Message{Text: truncate(tr(l, "blocks.escalate.fallback", i18n.Verbatim(Line(headlineIn(v, l))+" ("+Line(targetText(rep.Target))+")")), MaxFallbackText), Blocks: Fit(bl, "")}
}

// safeLink reports whether s can go inside <...|...> as a link: an https
// address without the characters that end or split the markup.
func safeLink(s string) bool {
	return strings.HasPrefix(s, "https://") && !strings.ContainsAny(s, "<>| \n\r\t")
}
