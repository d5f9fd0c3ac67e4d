package blocks

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/i18n"
)

// DefaultListLines is how many jobs a list shows, one line each, when
// ListOptions.MaxLines is zero. The picker offers up to MaxSelectOptions.
const DefaultListLines = 20

// maxShownNamespaces is how many namespaces a list names.
const maxShownNamespaces = 5

// maxListHeadline bounds a job's headline on its line.
const maxListHeadline = 200

// ListOptions tunes JobList and HomeView.
type ListOptions struct {
	// MaxLines caps the jobs listed one per line: DefaultListLines when
	// zero in JobList, as many as the tab holds in HomeView. The rest are
	// counted ("… and 7 more") and still offered in the picker.
	MaxLines int
	// Namespaces are where the jobs were looked for (explain's
	// JobsResult.Namespaces.Names); the list says so.
	Namespaces []string
	// Truncated says only the first of the caller's namespaces were read.
	Truncated bool
	// Clusters are, for a list across several clusters, each cluster
	// listed; those that did not answer are named under the header.
	Clusters []diagnose.ClusterLook
	// Lang is the language of the list's sentences and headlines.
	Lang i18n.Lang
}

func (o ListOptions) maxLines() int {
	if o.MaxLines > 0 {
		return o.MaxLines
	}
	return DefaultListLines
}

// JobList renders the caller's jobs that are not running, in the order
// given (explain lists them newest first): a header with the count, where
// they were looked for and how many of each verdict, one line per job with
// its verdict code and headline (capped at MaxLines, then "… and N more"),
// and a picker (ActionPick) to open one. The picker is never the part Fit
// cuts.
func JobList(jobs []diagnose.Report, opts ListOptions) Message {
	l := opts.Lang
	if len(jobs) == 0 {
		title := tr(l, "blocks.list.none.title")
		return Message{
			Text: title + tr(l, "blocks.list.period"),
			Blocks: Fit([]slack.Block{
				slack.NewHeaderBlock(plain(title)),
				slack.NewSectionBlock(mrkdwn(tr(l, "blocks.list.none.text", i18n.Verbatim(whereText(opts)))), nil, nil),
			}, ""),
		}
	}
	header := tr(l, "blocks.list.header", i18n.Num(len(jobs)))
	content := []slack.Block{
		slack.NewHeaderBlock(plain(header)),
		slack.NewContextBlock("", mrkdwn(tr(l, "blocks.list.context", i18n.Verbatim(capitalize(whereText(opts))), i18n.Verbatim(codeCounts(jobs))))),
	}
	if n := clusterNotes(l, opts.Clusters); n != "" {
		content = append(content, slack.NewContextBlock("", mrkdwn(truncate(n, MaxContextText))))
	}
	shown := jobs[:min(len(jobs), opts.maxLines())]
	lines := make([]string, 0, len(shown))
	for _, r := range shown {
		lines = append(lines, "• "+jobLine(r, l))
	}
	content = append(content, packSections("", lines)...)
	if more := len(jobs) - len(shown); more > 0 {
		content = append(content, slack.NewContextBlock("", mrkdwn(tr(l, "blocks.list.more", i18n.Num(more)))))
	}
	lim := messageLimits
	picker := pickerBlock(jobs, l)
	if picker != nil {
		lim = lim.reserve(picker)
	}
	bl := fitWith(content, "kueuebot diagnose NAME -n NAMESPACE", lim)
	if picker != nil {
		bl = append(bl, picker)
	}
	return Message{Text: truncate(Escape(header), MaxFallbackText), Blocks: bl}
}

// HomeView renders the App Home tab: the caller's jobs that are not
// running with their verdicts, one section each (up to MaxLines, and as
// many as the tab's MaxViewBlocks allow), the picker, and how to ask.
func HomeView(jobs []diagnose.Report, opts ListOptions) slack.HomeTabViewRequest {
	l := opts.Lang
	content := []slack.Block{
		slack.NewHeaderBlock(plain(tr(l, "blocks.home.title"))),
		slack.NewSectionBlock(mrkdwn(tr(l, "blocks.home.intro")), nil, nil),
	}
	if len(jobs) == 0 {
		content = append(content, slack.NewSectionBlock(mrkdwn(tr(l, "blocks.home.nothing", i18n.Verbatim(whereText(opts)))), nil, nil))
	} else {
		content = append(content, slack.NewContextBlock("", mrkdwn(capitalize(whereText(opts))+" · "+codeCounts(jobs))))
		if picker := pickerBlock(jobs, l); picker != nil {
			content = append(content, picker)
		}
		content = append(content, slack.NewDividerBlock())
	}
	footer := []slack.Block{
		slack.NewDividerBlock(),
		slack.NewContextBlock("", mrkdwn(tr(l, "blocks.home.footer"))),
	}
	// Room for the fixed blocks, the footer and an "and N more" note.
	room := MaxViewBlocks - len(content) - len(footer) - 1
	limit := max(room, 0)
	if opts.MaxLines > 0 {
		limit = min(limit, opts.MaxLines)
	}
	shown := jobs[:min(len(jobs), limit)]
	for _, r := range shown {
		content = append(content, slack.NewSectionBlock(mrkdwn(homeLine(r, l)), nil, nil))
	}
	if more := len(jobs) - len(shown); more > 0 {
		content = append(content, slack.NewContextBlock("", mrkdwn(tr(l, "blocks.home.more", i18n.Num(more)))))
	}
	bl := fitWith(content, "", viewLimits.reserve(footer...))
	bl = append(bl, footer...)
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: bl}}
}

// jobLine is one job on one line: name, verdict code, headline.
func jobLine(r diagnose.Report, l i18n.Lang) string {
	return fmt.Sprintf("*%s* · %s%s · %s", Line(refText(r)), Code(string(r.Verdict.Code)), estimateNote(r, l), Line(truncate(headlineIn(r.Verdict, l), maxListHeadline)))
}

// estimateNote is " · starts in 20m-45m" for a job with an estimate, " ·
// no estimate" for one waiting for quota without one, else "".
func estimateNote(r diagnose.Report, l i18n.Lang) string {
	switch {
	case r.Estimate.Known():
		return " · " + tr(l, "blocks.list.starts", i18n.Verbatim(Line(render.EstimateShortIn(l, r.Estimate))))
	case r.Estimate != nil && diagnose.Replayed(&r):
		return " · " + tr(l, "blocks.list.noEstimate")
	}
	return ""
}

// homeLine is one job in the Home tab: name, kind and verdict, then the
// headline.
func homeLine(r diagnose.Report, l i18n.Lang) string {
	s := "*" + Line(refText(r)) + "*"
	if r.Target.Kind != "" {
		s += " (" + Line(r.Target.Kind) + ")"
	}
	s += " · " + Code(string(r.Verdict.Code))
	if r.Verdict.Cause != "" {
		s += " / " + Code(string(r.Verdict.Cause))
	}
	return s + estimateNote(r, l) + "\n" + Line(truncate(headlineIn(r.Verdict, l), maxListHeadline))
}

// refText is "namespace/name", after "cluster: " when the bot reads
// several clusters.
func refText(r diagnose.Report) string {
	s := r.Target.Name
	if r.Target.Namespace != "" {
		s = r.Target.Namespace + "/" + s
	}
	if r.Cluster != "" {
		s = r.Cluster + ": " + s
	}
	return s
}

// pickerBlock is the static_select that opens one job (ActionPick), with
// one option per job whose JobRef fits in an option value, up to
// MaxSelectOptions. Nil when no job can be offered.
func pickerBlock(jobs []diagnose.Report, l i18n.Lang) *slack.ActionBlock {
	var opts []*slack.OptionBlockObject
	seen := map[string]bool{}
	for _, r := range jobs {
		if len(opts) == MaxSelectOptions {
			break
		}
		ref, ok := ReportRef(r)
		if !ok || runeLen(ref.String()) > MaxOptionValue || seen[ref.String()] {
			continue
		}
		seen[ref.String()] = true
		text := truncate(refText(r)+" · "+string(r.Verdict.Code), MaxOptionText)
		opts = append(opts, slack.NewOptionBlockObject(ref.String(), plain(text), nil))
	}
	if len(opts) == 0 {
		return nil
	}
	sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plain(tr(l, "blocks.list.pick")), ActionPick, opts...)
	return slack.NewActionBlock(BlockPicker, sel)
}

// whereText says where the jobs were looked for: "in team-a and team-b",
// "in team-a, team-b, … and 3 more namespaces".
func whereText(o ListOptions) string {
	l := o.Lang
	n := len(o.Namespaces)
	if n == 0 {
		return tr(l, "blocks.list.where.yours")
	}
	shown := make([]i18n.Arg, 0, min(n, maxShownNamespaces)+1)
	for _, ns := range o.Namespaces[:min(n, maxShownNamespaces)] {
		shown = append(shown, i18n.Verbatim(Code(ns)))
	}
	if n > maxShownNamespaces {
		shown = append(shown, i18n.M("blocks.list.where.more", i18n.Num(n-maxShownNamespaces)))
	}
	s := tr(l, "blocks.list.where", i18n.And(shown...))
	if o.Truncated {
		s += tr(l, "blocks.list.where.truncated", i18n.Num(n))
	}
	return s
}

// codeCounts counts the jobs of each verdict code, in order of first
// appearance: "2 `WaitingForQuota` · 1 `Misconfigured`".
func codeCounts(jobs []diagnose.Report) string {
	var order []diagnose.Code
	count := map[diagnose.Code]int{}
	for _, r := range jobs {
		c := r.Verdict.Code
		if count[c] == 0 {
			order = append(order, c)
		}
		count[c]++
	}
	parts := make([]string, 0, len(order))
	for _, c := range order {
		parts = append(parts, fmt.Sprintf("%d %s", count[c], Code(string(c))))
	}
	return strings.Join(parts, " · ")
}

// capitalize upper-cases the first letter (of a Latin script; CJK text is
// left as it is).
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
