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
	// MaxViewBlocks is the block limit of the Home tab and modals.
	MaxViewBlocks = 100
	// MaxSelectOptions, MaxOptionText and MaxOptionValue bound a
	// static_select.
	MaxSelectOptions = 100
	MaxOptionText    = 75
	MaxOptionValue   = 150
	// MaxPlaceholderText bounds a select's placeholder.
	MaxPlaceholderText = 150
	// MaxBlockID bounds a block_id.
	MaxBlockID = 255
	// Confirmation dialog limits.
	MaxConfirmTitle  = 100
	MaxConfirmText   = 300
	MaxConfirmButton = 30
)

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// limits are the limits of a whole surface.
type limits struct {
	blocks int
	// text is the most text over all blocks; 0 means no limit.
	text int
}

var (
	messageLimits = limits{blocks: MaxBlocks, text: MaxTotalText}
	viewLimits    = limits{blocks: MaxViewBlocks}
)

// reserve returns the limits left once tail is added.
func (l limits) reserve(tail ...slack.Block) limits {
	l.blocks -= len(tail)
	if l.text > 0 {
		l.text -= totalText(tail)
	}
	return l
}

// Fit returns blocks that respect Slack's limits for a message. Nothing
// fails: long texts are truncated with "…"; surplus fields, context
// elements, cells and select options are dropped; buttons and options
// whose action_id or value would not fit are dropped (a cut value would act
// on the wrong thing); a second table becomes a preformatted section;
// surplus table rows and surplus blocks are replaced by a note pointing at
// hint, e.g. "… 12 more rows, see `kueuebot diagnose ... -o text`". The
// input is not modified.
func Fit(in []slack.Block, hint string) []slack.Block {
	return fitWith(in, hint, messageLimits)
}

// FitView is Fit for the Home tab and modals: up to MaxViewBlocks blocks.
func FitView(in []slack.Block, hint string) []slack.Block {
	return fitWith(in, hint, viewLimits)
}

func fitWith(in []slack.Block, hint string, lim limits) []slack.Block {
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
			if b.Accessory != nil {
				c.Accessory = fitAccessory(b.Accessory)
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
	return fitTotal(out, hint, lim)
}

func fitText(t *slack.TextBlockObject, n int) *slack.TextBlockObject {
	if t == nil || len(t.Text) <= n || runeLen(t.Text) <= n { // no more runes than bytes
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
		if e = fitElement(e); e != nil {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	c := *b
	c.Elements = &slack.BlockElements{ElementSet: kept}
	return &c
}

// fitElement fits a button or a select, or returns nil when it cannot be
// kept: an action_id or a button value that does not fit is dropped, not
// cut. A select keeps the first MaxSelectOptions options whose value fits;
// a static select left with none is dropped.
func fitElement(e slack.BlockElement) slack.BlockElement {
	switch e := e.(type) {
	case *slack.ButtonBlockElement:
		if runeLen(e.ActionID) > MaxActionID || runeLen(e.Value) > MaxButtonValue {
			return nil
		}
		c := *e
		c.Text = fitText(e.Text, MaxButtonText)
		return &c
	case *slack.SelectBlockElement:
		if runeLen(e.ActionID) > MaxActionID {
			return nil
		}
		c := *e
		c.Placeholder = fitText(e.Placeholder, MaxPlaceholderText)
		c.Options = nil
		for _, o := range e.Options {
			if len(c.Options) == MaxSelectOptions {
				break
			}
			if o == nil || runeLen(o.Value) > MaxOptionValue {
				continue
			}
			oc := *o
			oc.Text = fitText(o.Text, MaxOptionText)
			c.Options = append(c.Options, &oc)
		}
		if len(c.Options) == 0 && e.Type == slack.OptTypeStatic {
			return nil
		}
		return &c
	}
	return e
}

// fitAccessory fits a section's button or select; one that cannot be kept
// is dropped.
func fitAccessory(a *slack.Accessory) *slack.Accessory {
	c := *a
	if a.ButtonElement != nil {
		c.ButtonElement, _ = fitElement(a.ButtonElement).(*slack.ButtonBlockElement)
	}
	if a.SelectElement != nil {
		c.SelectElement, _ = fitElement(a.SelectElement).(*slack.SelectBlockElement)
	}
	if c == (slack.Accessory{}) {
		return nil
	}
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

// fitTotal drops blocks from the end until the surface has at most
// lim.blocks blocks and lim.text characters, and says what was dropped.
func fitTotal(bl []slack.Block, hint string, lim limits) []slack.Block {
	fits := func(n, text int) bool { return n <= lim.blocks && (lim.text == 0 || text <= lim.text) }
	// Bytes first: a text has no more runes than bytes, and counting the
	// runes of Japanese or Chinese text costs more than its length.
	if fits(len(bl), totalBytes(bl)) || fits(len(bl), totalText(bl)) {
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
		if fits(len(kept)+1, totalText(kept)+blockText(note)) {
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

// totalBytes is totalText in bytes: at least totalText.
func totalBytes(bl []slack.Block) int {
	n := 0
	for _, b := range bl {
		n += blockTextBy(b, func(s string) int { return len(s) })
	}
	return n
}

// blockText counts the characters of text a block carries.
func blockText(b slack.Block) int { return blockTextBy(b, runeLen) }

// blockTextBy is the text a block carries as measured by size.
func blockTextBy(b slack.Block, size func(string) int) int {
	sized := func(t *slack.TextBlockObject) int {
		if t == nil {
			return 0
		}
		return size(t.Text)
	}
	elementText := func(e slack.BlockElement) int { return elementTextBy(e, sized) }
	n := 0
	switch b := b.(type) {
	case *slack.HeaderBlock:
		n += sized(b.Text)
	case *slack.SectionBlock:
		n += sized(b.Text)
		for _, f := range b.Fields {
			n += sized(f)
		}
		if a := b.Accessory; a != nil {
			if a.ButtonElement != nil {
				n += elementText(a.ButtonElement)
			}
			if a.SelectElement != nil {
				n += elementText(a.SelectElement)
			}
		}
	case *slack.ContextBlock:
		for _, e := range b.ContextElements.Elements {
			if t, ok := e.(*slack.TextBlockObject); ok {
				n += sized(t)
			}
		}
	case *slack.ActionBlock:
		if b.Elements != nil {
			for _, e := range b.Elements.ElementSet {
				n += elementText(e)
			}
		}
	case *slack.TableBlock:
		for _, r := range b.Rows {
			for _, c := range r {
				n += size(cellText(c))
			}
		}
	}
	return n
}

// elementTextBy counts the text of a button or a select, each text by textLen.
func elementTextBy(e slack.BlockElement, textLen func(*slack.TextBlockObject) int) int {
	switch e := e.(type) {
	case *slack.ButtonBlockElement:
		return textLen(e.Text)
	case *slack.SelectBlockElement:
		n := textLen(e.Placeholder)
		for _, o := range e.Options {
			if o != nil {
				n += textLen(o.Text)
			}
		}
		return n
	}
	return 0
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
