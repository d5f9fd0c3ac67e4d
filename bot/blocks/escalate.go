package blocks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
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
func EscalateButton(ref JobRef) *slack.ButtonBlockElement {
	b := slack.NewButtonBlockElement(ActionEscalate, ref.String(), plain("Escalate to the platform team"))
	b.Style = slack.StyleDanger
	b.Confirm = slack.NewConfirmationBlockObject(
		plain("Escalate to the platform team?"),
		plain("I will post a summary in this thread and notify the on-call team. Everyone in this channel will see it, including what your access lets me read."),
		plain("Escalate"), plain("Cancel"))
	return b
}

// TriageSummary is the thread answer of a triage in summary mode: the
// verdict code and the headline, who asked, and that the full answer was
// sent to them privately; then extra (buttons), if any.
func TriageSummary(rep diagnose.Report, poster string, extra *slack.ActionBlock) Message {
	v := rep.Verdict
	s := "*" + Code(string(v.Code)) + "* " + Line(headline(v))
	if rep.Target.Name != "" {
		s += " (" + Code(targetText(rep.Target)) + ")"
	}
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(s, MaxSectionText)), nil, nil)}
	if reUserID.MatchString(poster) {
		note := "I sent the full answer to <@" + poster + "> privately."
		if extra != nil {
			note += " Anyone else can press *Explain it to me* to get it as they see it."
		}
		bl = append(bl, slack.NewContextBlock("", mrkdwn(note)))
	}
	if extra != nil {
		bl = append(bl, extra)
	}
	return Message{Text: fallbackText(rep, headline(v)), Blocks: Fit(bl, "")}
}

// TriageRepeat is the thread answer when the same job was answered in the
// channel a moment ago with the same verdict: a link to that answer.
// link is the earlier answer's permalink (https) or empty.
func TriageRepeat(rep diagnose.Report, link string, extra *slack.ActionBlock) Message {
	v := rep.Verdict
	where := "earlier in this channel"
	if safeLink(link) {
		where = "<" + link + "|earlier in this channel>"
	}
	s := fmt.Sprintf("I answered about %s %s, and the verdict has not changed: *%s* %s",
		Code(targetText(rep.Target)), where, Code(string(v.Code)), Line(headline(v)))
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(s, MaxSectionText)), nil, nil)}
	if extra != nil {
		bl = append(bl, extra)
	}
	return Message{Text: fallbackText(rep, headline(v)), Blocks: Fit(bl, "")}
}

// EscalationOptions says who escalates to whom and where.
type EscalationOptions struct {
	// UserGroup is the on-call Slack user group ID (S...), mentioned.
	UserGroup string
	// By is the Slack user who pressed the button (U...).
	By string
	// ThreadLink is the thread's permalink (https), or empty.
	ThreadLink string
}

// Escalation is the compact summary posted for the on-call team: the
// verdict, its cause, the job and its queues, the strongest evidence, what
// the answer leaves to the platform team (with its commands), the remedies
// already suggested to the user and a link to the thread. rep is read as the
// person who pressed the button, so it holds only what they may see.
func Escalation(rep diagnose.Report, o EscalationOptions) Message {
	v := rep.Verdict
	who := "the platform team"
	if reGroupID.MatchString(o.UserGroup) {
		who = "<!subteam^" + o.UserGroup + ">"
	}
	by := ""
	if reUserID.MatchString(o.By) {
		by = " by <@" + o.By + ">"
	}
	var b strings.Builder
	fmt.Fprintf(&b, ":rotating_light: %s: escalated%s\n", who, by)
	fmt.Fprintf(&b, "*Job:* %s\n", Code(targetText(rep.Target)))
	fmt.Fprintf(&b, "*Verdict:* %s: %s\n", Code(string(v.Code)), Line(headline(v)))
	if v.Cause != "" {
		fmt.Fprintf(&b, "*Cause:* %s\n", Code(string(v.Cause)))
	}
	if q := rep.Queue; q.LocalQueue != "" || q.ClusterQueue != "" {
		fmt.Fprintf(&b, "*Queues:* LocalQueue %s, ClusterQueue %s\n", Code(q.LocalQueue), Code(q.ClusterQueue))
	}
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(strings.TrimSuffix(b.String(), "\n"), MaxSectionText)), nil, nil)}
	if len(rep.Evidence) > 0 {
		var items []string
		for i, e := range rep.Evidence {
			if i == escalationEvidence {
				items = append(items, fmt.Sprintf("_and %d more_", len(rep.Evidence)-i))
				break
			}
			items = append(items, "• "+evidenceText(e))
		}
		bl = append(bl, packSections("*Evidence*", items)...)
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
				items = append(items, fmt.Sprintf("_and %d more_", len(platform)-i))
				break
			}
			it := "• " + Line(r.Summary)
			if r.Command != "" {
				it += "\n" + CodeBlock(r.Command)
			}
			items = append(items, it)
		}
		bl = append(bl, packSections("*For the platform team*", items)...)
	}
	if len(user) > 0 {
		var items []string
		for i, r := range user {
			if i == escalationRemedies {
				items = append(items, fmt.Sprintf("_and %d more_", len(user)-i))
				break
			}
			items = append(items, "• "+Line(r.Summary)+" ("+whoText(r.Who)+")")
		}
		bl = append(bl, packSections("*Already suggested to the user*", items)...)
	}
	link := "Thread: this one."
	if safeLink(o.ThreadLink) {
		link = "Thread: <" + o.ThreadLink + "|link to this thread>"
	}
	bl = append(bl, slack.NewContextBlock("", mrkdwn(link)))
	return Message{Text: truncate("Escalated: "+Line(headline(v))+" ("+Line(targetText(rep.Target))+")", MaxFallbackText), Blocks: Fit(bl, "")}
}

// safeLink reports whether s can go inside <...|...> as a link: an https
// address without the characters that end or split the markup.
func safeLink(s string) bool {
	return strings.HasPrefix(s, "https://") && !strings.ContainsAny(s, "<>| \n\r\t")
}
