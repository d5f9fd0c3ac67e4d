package blocks

import (
	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// AnswerOptions tunes Answer.
type AnswerOptions struct {
	Options
	// Detailed adds the quota comparison, what could not be checked and
	// the evidence (the answer to Show quota and evidence). Off, the
	// compact answer says what the details hold and offers the button.
	Detailed bool
	// Shareable adds Share in channel: set it on ephemeral answers only.
	Shareable bool
	// Notify adds "Tell me when it starts" to an answer about a job that
	// is not running yet (it waits for admission, or its pods wait for
	// the scheduler): the presser gets a DM as it starts.
	Notify bool
}

// Button labels (catalog IDs; labelDetails is its English).
const (
	labelRefresh   i18n.ID = "blocks.button.refresh"
	labelDetailsID i18n.ID = "blocks.button.details"
	labelShare     i18n.ID = "blocks.button.share"
	labelDetails           = "Show quota and evidence"
)

// Answer renders a diagnosis the way kueuebot answers in Slack: the compact
// answer first (headline, verdict, detail, findings, what to do), then
// buttons: Refresh, Show quota and evidence (when there are details to
// show) and Share in channel (Shareable). Buttons carry the job's JobRef
// only. A report that names no job completely (ReportRef) gets no buttons
// and shows its details at once, since they could not be asked for. The
// result is already Fit; the buttons are never the part that is cut.
func Answer(rep diagnose.Report, opts AnswerOptions) Message {
	ref, hasRef := ReportRef(rep)
	detailed := opts.Detailed || !hasRef
	content := reportBlocks(rep, opts.Options, detailed)
	if !detailed {
		if note := detailsNote(rep, opts.Lang); note != nil {
			content = append(content, note)
		}
	}
	lim := messageLimits
	var actions *slack.ActionBlock
	if hasRef {
		actions = fitActions(answerActions(ref, rep, detailed, opts.Shareable, opts.Notify, opts.Lang))
		lim = lim.reserve(actions)
	}
	bl := fitWith(content, hintOf(rep, opts.Options), lim)
	if actions != nil {
		bl = append(bl, actions)
	}
	return Message{Text: fallbackText(rep, headlineIn(rep.Verdict, opts.Lang)), Blocks: bl}
}

// hasDetails reports whether Show quota and evidence would show more.
func hasDetails(r diagnose.Report) bool {
	return len(r.Quota) > 0 || len(r.Gaps) > 0 || len(r.Evidence) > 0
}

// detailsNote says what Show quota and evidence holds, and warns when
// something could not be read.
func detailsNote(r diagnose.Report, l i18n.Lang) *slack.ContextBlock {
	if !hasDetails(r) {
		return nil
	}
	var parts []i18n.Arg
	if n := len(r.Quota); n > 0 {
		parts = append(parts, i18n.M("blocks.details.rows", i18n.Num(n)))
	}
	if n := len(r.Evidence); n > 0 {
		parts = append(parts, i18n.M("blocks.details.evidence", i18n.Num(n)))
	}
	if n := len(r.Gaps); n > 0 {
		parts = append(parts, i18n.M("blocks.details.gaps", i18n.Num(n)))
	}
	s := tr(l, "blocks.details.note", i18n.M(labelDetailsID), i18n.And(parts...))
	if len(r.Gaps) > 0 {
		s = tr(l, "blocks.details.incomplete") + " " + s
	}
	return slack.NewContextBlock("", mrkdwn(s))
}

func answerActions(ref JobRef, r diagnose.Report, detailed, shareable, notify bool, l i18n.Lang) *slack.ActionBlock {
	v := ref.String()
	els := []slack.BlockElement{slack.NewButtonBlockElement(ActionRefresh, v, plain(tr(l, labelRefresh)))}
	// The button carries the job's cluster (JobRef.Cluster): the
	// notifier watches it there, as the subscriber mapped there.
	if notify && (r.Verdict.Stage == diagnose.StageAdmission || r.Verdict.Stage == diagnose.StageScheduling) && r.Verdict.Code != diagnose.CodeNotFound {
		els = append(els, NotifyButton(l, ref))
	}
	if !detailed && hasDetails(r) {
		els = append(els, slack.NewButtonBlockElement(ActionDetails, v, plain(tr(l, labelDetailsID))))
	}
	if shareable {
		share := slack.NewButtonBlockElement(ActionShare, v, plain(tr(l, labelShare)))
		share.Style = slack.StylePrimary
		share.Confirm = slack.NewConfirmationBlockObject(
			plain(tr(l, "blocks.share.title")),
			plain(tr(l, "blocks.share.text")),
			plain(tr(l, "blocks.share.confirm")), plain(tr(l, "blocks.share.cancel")))
		els = append(els, share)
	}
	id := BlockAnswer
	if detailed {
		id = BlockAnswerDetailed
	}
	return slack.NewActionBlock(id, els...)
}
