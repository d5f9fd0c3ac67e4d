package blocks

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"
)

// dividerLine is how a divider looks in text.
var dividerLine = strings.Repeat("─", 40)

// Text renders a Block Kit message as plain text for a terminal: a header
// as an underlined line, sections and fields as paragraphs (mrkdwn markers
// kept, entities decoded, code blocks indented by four spaces), tables as
// aligned columns, context as one line, dividers as a rule, buttons as
// [labels]. Blocks are separated by a blank line. The output is
// deterministic and ends with a newline.
func Text(bl []slack.Block) string {
	var parts []string
	for _, b := range bl {
		if s := blockToText(b); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func blockToText(b slack.Block) string {
	switch b := b.(type) {
	case *slack.HeaderBlock:
		if b.Text == nil {
			return ""
		}
		t := strings.TrimSpace(textObject(b.Text))
		return t + "\n" + strings.Repeat("=", runeLen(t))
	case *slack.SectionBlock:
		var parts []string
		if b.Text != nil {
			parts = append(parts, textObject(b.Text))
		}
		if len(b.Fields) > 0 {
			parts = append(parts, fieldsText(b.Fields))
		}
		if a := b.Accessory; a != nil {
			if a.ButtonElement != nil {
				parts = append(parts, elementLabel(a.ButtonElement))
			}
			if a.SelectElement != nil {
				parts = append(parts, elementLabel(a.SelectElement))
			}
		}
		return strings.Join(parts, "\n")
	case *slack.ContextBlock:
		var els []string
		for _, e := range b.ContextElements.Elements {
			switch e := e.(type) {
			case *slack.TextBlockObject:
				els = append(els, textObject(e))
			case *slack.ImageBlockElement:
				els = append(els, "["+e.AltText+"]")
			}
		}
		return strings.Join(els, " | ")
	case *slack.DividerBlock:
		return dividerLine
	case *slack.TableBlock:
		rows := make([][]string, len(b.Rows))
		for i, r := range b.Rows {
			rows[i] = make([]string, len(r))
			for j, c := range r {
				rows[i][j] = strings.Join(strings.Fields(cellText(c)), " ")
			}
		}
		right := make([]bool, len(b.ColumnSettings))
		for i, s := range b.ColumnSettings {
			right[i] = s.Align == slack.ColumnAlignmentRight
		}
		return alignColumns(rows, right, true)
	case *slack.RichTextBlock:
		var sb strings.Builder
		for _, e := range b.Elements {
			richText(&sb, e)
		}
		return sb.String()
	case *slack.ActionBlock:
		if b.Elements == nil {
			return ""
		}
		var labels []string
		for _, e := range b.Elements.ElementSet {
			if l := elementLabel(e); l != "" {
				labels = append(labels, l)
			}
		}
		return strings.Join(labels, " ")
	}
	return fmt.Sprintf("[%s block]", b.BlockType())
}

// elementLabel renders a button as [label] and a select as
// [placeholder ▾ N choices].
func elementLabel(e slack.BlockElement) string {
	switch e := e.(type) {
	case *slack.ButtonBlockElement:
		if e.Text != nil {
			return "[" + textObject(e.Text) + "]"
		}
	case *slack.SelectBlockElement:
		label := "choose"
		if e.Placeholder != nil {
			label = textObject(e.Placeholder)
		}
		if len(e.Options) == 0 {
			return "[" + label + " ▾]"
		}
		return fmt.Sprintf("[%s ▾ %d choices]", label, len(e.Options))
	}
	return ""
}

// textObject renders a text object: plain text as is, mrkdwn decoded.
func textObject(t *slack.TextBlockObject) string {
	if t.Type == slack.PlainTextType {
		return t.Text
	}
	return mrkdwnToText(t.Text)
}

// mrkdwnToText decodes entities and turns ``` blocks into indented lines.
func mrkdwnToText(s string) string {
	parts := strings.Split(s, "```")
	if len(parts)%2 == 0 {
		// An unclosed fence: treat the rest as text.
		parts[len(parts)-2] += "```" + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	var b strings.Builder
	for i, p := range parts {
		p = unescaper.Replace(p)
		if i%2 == 0 {
			if i > 0 && p != "" && !strings.HasPrefix(p, "\n") {
				b.WriteString("\n")
			}
			b.WriteString(p)
			continue
		}
		out := b.String()
		if out != "" && !strings.HasSuffix(out, "\n") {
			b.WriteString("\n")
		}
		p = strings.TrimPrefix(strings.TrimSuffix(p, "\n"), "\n")
		lines := strings.Split(p, "\n")
		for j, l := range lines {
			if j > 0 {
				b.WriteString("\n")
			}
			if l != "" {
				b.WriteString("    " + l)
			}
		}
	}
	return b.String()
}

// fieldsText lays fields out in two columns when every field is one line,
// as Slack does; otherwise one field per paragraph.
func fieldsText(fs []*slack.TextBlockObject) string {
	texts := make([]string, 0, len(fs))
	oneLine := true
	for _, f := range fs {
		if f == nil {
			continue
		}
		t := textObject(f)
		oneLine = oneLine && !strings.Contains(t, "\n")
		texts = append(texts, t)
	}
	if !oneLine {
		return strings.Join(texts, "\n")
	}
	var rows [][]string
	for i := 0; i < len(texts); i += 2 {
		row := []string{texts[i]}
		if i+1 < len(texts) {
			row = append(row, texts[i+1])
		}
		rows = append(rows, row)
	}
	return alignColumns(rows, nil, false)
}

// alignColumns pads cells so columns line up, two spaces apart; right[i]
// right-aligns column i. With header, a rule follows the first row.
// Trailing spaces are trimmed.
func alignColumns(rows [][]string, right []bool, header bool) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], runeLen(c))
		}
	}
	var b strings.Builder
	for ri, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-runeLen(c))
			if i < len(right) && right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		if ri > 0 {
			b.WriteString("\n")
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		if ri == 0 && header && len(rows) > 1 {
			total := 0
			for i, w := range widths {
				if i > 0 {
					total += 2
				}
				total += w
			}
			b.WriteString("\n" + strings.Repeat("-", total))
		}
	}
	return b.String()
}
