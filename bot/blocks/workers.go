package blocks

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

// workerBlocks render each MultiKueue worker cluster's own diagnosis of the
// job (Report.Workers): a section per worker with its verdict, headline and
// detail, then its remedies; or why the worker could not be read. Every
// string comes from the cluster and is escaped.
func workerBlocks(r diagnose.Report, l i18n.Lang) []slack.Block {
	var bl []slack.Block
	for _, w := range r.Workers {
		bl = append(bl, slack.NewDividerBlock())
		title := "🛰️ *" + tr(l, "blocks.worker.on", i18n.Verbatim(Code(w.Cluster))) + "*"
		if w.Report == nil {
			bl = append(bl, slack.NewSectionBlock(mrkdwn(truncate(title+"\n"+Line(w.ErrorIn(l)), MaxSectionText)), nil, nil))
			continue
		}
		wr := w.Report
		v := wr.Verdict
		code := string(v.Code)
		if v.Cause != "" {
			code += "/" + string(v.Cause)
		}
		s := fmt.Sprintf("%s%s %s\n%s", title, colon(l), Line(v.HeadlineIn(l)), Code(code))
		if wr.Target.Workload != "" {
			s += " · Workload " + Code(wr.Target.Workload)
		}
		if wr.Queue.ClusterQueue != "" {
			s += " · ClusterQueue " + Code(wr.Queue.ClusterQueue)
		}
		if d := strings.TrimSpace(v.DetailIn(l)); d != "" {
			s += "\n" + Paragraph(d)
		}
		bl = append(bl, slack.NewSectionBlock(mrkdwn(truncate(s, MaxSectionText)), nil, nil))
		if len(wr.Remedies) > 0 {
			items := make([]string, 0, len(wr.Remedies))
			for i, m := range wr.Remedies {
				item := fmt.Sprintf("*%d.* %s  _(%s)_", i+1, Line(m.SummaryIn(l)), Line(whoTextIn(m.Who, l)))
				if m.Command != "" {
					item += "\n" + CodeBlock(m.Command)
				}
				items = append(items, item)
			}
			bl = append(bl, packSections("*"+tr(l, "blocks.worker.whatToDo", i18n.Verbatim(Code(w.Cluster)))+"*", items)...)
		}
	}
	return bl
}
