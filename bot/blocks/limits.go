package blocks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// Slack's Block Kit limits for messages. Lengths are in characters.
const (
	MaxBlocks          = 50
	MaxSectionText     = 3000
	MaxFields          = 10
	MaxFieldText       = 2000
	MaxHeaderText      = 150
	MaxContextElements = 10
	MaxContextText     = 2000
	MaxActionElements  = 25
	MaxButtonText      = 75
	MaxActionID        = 255
	MaxButtonValue     = 2000
	// MaxTotalText is where Slack starts failing with msg_blocks_too_long
	// (undocumented, roughly 12k characters over all blocks).
	MaxTotalText  = 12000
	MaxTables     = 1
	MaxTableRows  = 100
	MaxTableCells = 20
	// MaxFallbackText bounds the notification text.
	MaxFallbackText = 3000
)

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// Fit returns blocks that respect Slack's limits. Nothing fails: long texts
// are truncated with "…"; surplus fields, context elements and cells are
// dropped; buttons whose action_id or value would not fit are dropped
// (a cut value would act on the wrong thing); a second table becomes a
// preformatted section; surplus table rows and surplus blocks are replaced
// by a note pointing at hint, e.g. "… 12 more rows, see `kueuebot diagnose
// ... -o text`". The input is not modified.
func Fit(in []slack.Block, hint string) []slack.Block {
	out := make([]slack.Block, 0, len(in))
	tables := 0
	for _, b := range in {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			c := *b
			c.Text = fitText(b.Text, MaxHeaderText)
			out = append(out, &c)
		case *slack.SectionBlock:
			c := *b
			c.Text = fitText(b.Text, MaxSectionText)
			c.Fields = nil
			for i, f := range b.Fields {
				if i == MaxFields {
					break
				}
				c.Fields = append(c.Fields, fitText(f, MaxFieldText))
			}
			out = append(out, &c)
		case *slack.ContextBlock:
			c := *b
			c.ContextElements.Elements = nil
			for i, e := range b.ContextElements.Elements {
				if i == MaxContextElements {
					break
				}
				if t, ok := e.(*slack.TextBlockObject); ok {
					e = fitText(t, MaxContextText)
				}
				c.ContextElements.Elements = append(c.ContextElements.Elements, e)
			}
			out = append(out, &c)
		case *slack.ActionBlock:
			if c := fitActions(b); c != nil {
				out = append(out, c)
			}
		case *slack.TableBlock:
			tables++
			if tables > MaxTables {
				out = append(out, tableAsSection(b))
				continue
			}
			c, more := fitTable(b)
			out = append(out, c)
			if more > 0 {
				out = append(out, moreNote(more, "row", hint))
			}
		default:
			out = append(out, b)
		}
	}
	return fitTotal(out, hint)
}

func fitText(t *slack.TextBlockObject, n int) *slack.TextBlockObject {
	if t == nil || runeLen(t.Text) <= n {
		return t
	}
	c := *t
	c.Text = truncate(t.Text, n)
	return &c
}

func fitActions(b *slack.ActionBlock) *slack.ActionBlock {
	if b.Elements == nil {
		return b
	}
	var kept []slack.BlockElement
	for _, e := range b.Elements.ElementSet {
		if len(kept) == MaxActionElements {
			break
		}
		if btn, ok := e.(*slack.ButtonBlockElement); ok {
			if runeLen(btn.ActionID) > MaxActionID || runeLen(btn.Value) > MaxButtonValue {
				continue
			}
			c := *btn
			c.Text = fitText(btn.Text, MaxButtonText)
			e = &c
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		return nil
	}
	c := *b
	c.Elements = &slack.BlockElements{ElementSet: kept}
	return &c
}

// fitTable keeps at most MaxTableRows rows of at most MaxTableCells cells
// and reports how many rows were dropped.
func fitTable(b *slack.TableBlock) (*slack.TableBlock, int) {
	c := *b
	if len(c.ColumnSettings) > MaxTableCells {
		c.ColumnSettings = c.ColumnSettings[:MaxTableCells]
	}
	rows := b.Rows
	more := 0
	if len(rows) > MaxTableRows {
		more = len(rows) - MaxTableRows
		rows = rows[:MaxTableRows]
	}
	c.Rows = make([][]slack.TableCell, len(rows))
	for i, r := range rows {
		if len(r) > MaxTableCells {
			r = r[:MaxTableCells]
		}
		c.Rows[i] = r
	}
	return &c, more
}

// tableAsSection renders a surplus table as a preformatted section.
func tableAsSection(b *slack.TableBlock) *slack.SectionBlock {
	rows := make([][]string, len(b.Rows))
	for i, r := range b.Rows {
		rows[i] = make([]string, len(r))
		for j, cell := range r {
			rows[i][j] = cellText(cell)
		}
	}
	right := make([]bool, len(b.ColumnSettings))
	for i, s := range b.ColumnSettings {
		right[i] = s.Align == slack.ColumnAlignmentRight
	}
	return slack.NewSectionBlock(mrkdwn(truncate(CodeBlock(alignColumns(rows, right, true)), MaxSectionText)), nil, nil)
}

func moreNote(n int, what, hint string) *slack.ContextBlock {
	s := fmt.Sprintf("… %d more %s", n, what)
	if n != 1 {
		s += "s"
	}
	if hint != "" {
		s += ", see " + Code(hint)
	}
	return slack.NewContextBlock("", mrkdwn(s))
}

// fitTotal drops blocks from the end until the message has at most
// MaxBlocks blocks and MaxTotalText characters, and says what was dropped.
func fitTotal(bl []slack.Block, hint string) []slack.Block {
	if len(bl) <= MaxBlocks && totalText(bl) <= MaxTotalText {
		return bl
	}
	for k := len(bl) - 1; k >= 0; k-- {
		kept := bl[:k]
		for len(kept) > 0 {
			if _, ok := kept[len(kept)-1].(*slack.DividerBlock); !ok {
				break
			}
			kept = kept[:len(kept)-1]
		}
		note := moreNote(len(bl)-len(kept), "block", hint)
		if len(kept)+1 <= MaxBlocks && totalText(kept)+blockText(note) <= MaxTotalText {
			return append(append([]slack.Block{}, kept...), note)
		}
	}
	return []slack.Block{moreNote(len(bl), "block", hint)}
}

func totalText(bl []slack.Block) int {
	n := 0
	for _, b := range bl {
		n += blockText(b)
	}
	return n
}

func textLen(t *slack.TextBlockObject) int {
	if t == nil {
		return 0
	}
	return runeLen(t.Text)
}

// blockText counts the characters of text a block carries.
func blockText(b slack.Block) int {
	n := 0
	switch b := b.(type) {
	case *slack.HeaderBlock:
		n += textLen(b.Text)
	case *slack.SectionBlock:
		n += textLen(b.Text)
		for _, f := range b.Fields {
			n += textLen(f)
		}
	case *slack.ContextBlock:
		for _, e := range b.ContextElements.Elements {
			if t, ok := e.(*slack.TextBlockObject); ok {
				n += textLen(t)
			}
		}
	case *slack.ActionBlock:
		if b.Elements != nil {
			for _, e := range b.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok {
					n += textLen(btn.Text)
				}
			}
		}
	case *slack.TableBlock:
		for _, r := range b.Rows {
			for _, c := range r {
				n += runeLen(cellText(c))
			}
		}
	}
	return n
}

// Check lists every limit the blocks break; empty means Slack should accept
// them. Fit's output always passes.
func Check(bl []slack.Block) []string {
	var v []string
	add := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	if len(bl) > MaxBlocks {
		add("%d blocks, max %d", len(bl), MaxBlocks)
	}
	if n := totalText(bl); n > MaxTotalText {
		add("%d characters of text, max %d", n, MaxTotalText)
	}
	tables := 0
	for i, b := range bl {
		switch b := b.(type) {
		case *slack.HeaderBlock:
			if b.Text == nil || b.Text.Type != slack.PlainTextType {
				add("block %d: header text must be plain_text", i)
			}
			if n := textLen(b.Text); n > MaxHeaderText {
				add("block %d: header text %d, max %d", i, n, MaxHeaderText)
			}
		case *slack.SectionBlock:
			if b.Text == nil && len(b.Fields) == 0 {
				add("block %d: section without text or fields", i)
			}
			if n := textLen(b.Text); n > MaxSectionText {
				add("block %d: section text %d, max %d", i, n, MaxSectionText)
			}
			if len(b.Fields) > MaxFields {
				add("block %d: %d fields, max %d", i, len(b.Fields), MaxFields)
			}
			for j, f := range b.Fields {
				if n := textLen(f); n > MaxFieldText {
					add("block %d: field %d text %d, max %d", i, j, n, MaxFieldText)
				}
			}
		case *slack.ContextBlock:
			if n := len(b.ContextElements.Elements); n > MaxContextElements || n == 0 {
				add("block %d: %d context elements, want 1 to %d", i, n, MaxContextElements)
			}
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slack.TextBlockObject); ok && textLen(t) > MaxContextText {
					add("block %d: context text %d, max %d", i, textLen(t), MaxContextText)
				}
			}
		case *slack.ActionBlock:
			if b.Elements == nil {
				continue
			}
			if n := len(b.Elements.ElementSet); n > MaxActionElements {
				add("block %d: %d action elements, max %d", i, n, MaxActionElements)
			}
			for _, e := range b.Elements.ElementSet {
				btn, ok := e.(*slack.ButtonBlockElement)
				if !ok {
					continue
				}
				if textLen(btn.Text) > MaxButtonText {
					add("block %d: button text %d, max %d", i, textLen(btn.Text), MaxButtonText)
				}
				if runeLen(btn.ActionID) > MaxActionID {
					add("block %d: action_id %d, max %d", i, runeLen(btn.ActionID), MaxActionID)
				}
				if runeLen(btn.Value) > MaxButtonValue {
					add("block %d: button value %d, max %d", i, runeLen(btn.Value), MaxButtonValue)
				}
			}
		case *slack.TableBlock:
			tables++
			if tables > MaxTables {
				add("block %d: more than %d table", i, MaxTables)
			}
			if len(b.Rows) > MaxTableRows {
				add("block %d: %d table rows, max %d", i, len(b.Rows), MaxTableRows)
			}
			for j, r := range b.Rows {
				if len(r) > MaxTableCells {
					add("block %d: row %d has %d cells, max %d", i, j, len(r), MaxTableCells)
				}
			}
		}
	}
	return v
}

// cellText is the text a table cell shows.
func cellText(c slack.TableCell) string {
	switch c := c.(type) {
	case *slack.TableRawTextCell:
		return c.Text
	case *slack.TableRawNumberCell:
		if c.Text != "" {
			return c.Text
		}
		return fmt.Sprintf("%g", c.Value)
	case *slack.TableRichTextCell:
		var b strings.Builder
		for _, e := range c.Elements {
			richText(&b, e)
		}
		return b.String()
	}
	return ""
}

// richText writes the text of a rich text element.
func richText(b *strings.Builder, e slack.RichTextElement) {
	switch e := e.(type) {
	case *slack.RichTextSection:
		for _, se := range e.Elements {
			if t, ok := se.(*slack.RichTextSectionTextElement); ok {
				b.WriteString(t.Text)
			}
		}
	case *slack.RichTextPreformatted:
		for _, se := range e.Elements {
			if t, ok := se.(*slack.RichTextSectionTextElement); ok {
				b.WriteString(t.Text)
			}
		}
	}
}
