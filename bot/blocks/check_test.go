package blocks

import (
	"fmt"

	"github.com/slack-go/slack"
)

// Check lists every limit the blocks of a message break; empty means Slack
// should accept them. Fit's output always passes.
func Check(bl []slack.Block) []string { return check(bl, messageLimits) }

// CheckView is Check for the Home tab and modals. FitView's output always
// passes.
func CheckView(bl []slack.Block) []string { return check(bl, viewLimits) }

func check(bl []slack.Block, lim limits) []string {
	var v []string
	add := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	if len(bl) > lim.blocks {
		add("%d blocks, max %d", len(bl), lim.blocks)
	}
	if n := totalText(bl); lim.text > 0 && n > lim.text {
		add("%d characters of text, max %d", n, lim.text)
	}
	blockIDs := map[string]bool{}
	tables := 0
	for i, b := range bl {
		if id := blockID(b); id != "" {
			if blockIDs[id] {
				add("block %d: block_id %q used twice", i, id)
			}
			blockIDs[id] = true
			if runeLen(id) > MaxBlockID {
				add("block %d: block_id %d, max %d", i, runeLen(id), MaxBlockID)
			}
		}
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
			if a := b.Accessory; a != nil {
				if a.ButtonElement != nil {
					v = append(v, checkElement(i, a.ButtonElement)...)
				}
				if a.SelectElement != nil {
					v = append(v, checkElement(i, a.SelectElement)...)
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
			if n := len(b.Elements.ElementSet); n > MaxActionElements || n == 0 {
				add("block %d: %d action elements, want 1 to %d", i, n, MaxActionElements)
			}
			ids := map[string]bool{}
			for _, e := range b.Elements.ElementSet {
				if id := elementActionID(e); id != "" {
					if ids[id] {
						add("block %d: action_id %q used twice", i, id)
					}
					ids[id] = true
				}
				v = append(v, checkElement(i, e)...)
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

// checkElement lists the limits a button or select of block i breaks.
func checkElement(i int, e slack.BlockElement) []string {
	var v []string
	add := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }
	switch e := e.(type) {
	case *slack.ButtonBlockElement:
		if e.Text == nil || e.Text.Type != slack.PlainTextType {
			add("block %d: button text must be plain_text", i)
		}
		if textLen(e.Text) > MaxButtonText {
			add("block %d: button text %d, max %d", i, textLen(e.Text), MaxButtonText)
		}
		if runeLen(e.ActionID) > MaxActionID {
			add("block %d: action_id %d, max %d", i, runeLen(e.ActionID), MaxActionID)
		}
		if runeLen(e.Value) > MaxButtonValue {
			add("block %d: button value %d, max %d", i, runeLen(e.Value), MaxButtonValue)
		}
		if c := e.Confirm; c != nil {
			for _, t := range []struct {
				what string
				obj  *slack.TextBlockObject
				max  int
			}{{"title", c.Title, MaxConfirmTitle}, {"text", c.Text, MaxConfirmText}, {"confirm", c.Confirm, MaxConfirmButton}, {"deny", c.Deny, MaxConfirmButton}} {
				if t.obj == nil && t.what != "deny" {
					add("block %d: confirm dialog without %s", i, t.what)
				}
				if textLen(t.obj) > t.max {
					add("block %d: confirm %s %d, max %d", i, t.what, textLen(t.obj), t.max)
				}
			}
		}
	case *slack.SelectBlockElement:
		if runeLen(e.ActionID) > MaxActionID {
			add("block %d: action_id %d, max %d", i, runeLen(e.ActionID), MaxActionID)
		}
		if e.Placeholder != nil && e.Placeholder.Type != slack.PlainTextType {
			add("block %d: placeholder must be plain_text", i)
		}
		if textLen(e.Placeholder) > MaxPlaceholderText {
			add("block %d: placeholder %d, max %d", i, textLen(e.Placeholder), MaxPlaceholderText)
		}
		if e.Type == slack.OptTypeStatic && (len(e.Options) == 0 || len(e.Options) > MaxSelectOptions) {
			add("block %d: %d select options, want 1 to %d", i, len(e.Options), MaxSelectOptions)
		}
		values := map[string]bool{}
		for j, o := range e.Options {
			if o == nil || o.Text == nil {
				add("block %d: option %d has no text", i, j)
				continue
			}
			if o.Text.Type != slack.PlainTextType {
				add("block %d: option %d text must be plain_text", i, j)
			}
			if textLen(o.Text) > MaxOptionText {
				add("block %d: option %d text %d, max %d", i, j, textLen(o.Text), MaxOptionText)
			}
			if runeLen(o.Value) > MaxOptionValue {
				add("block %d: option %d value %d, max %d", i, j, runeLen(o.Value), MaxOptionValue)
			}
			if values[o.Value] {
				add("block %d: option value %q used twice", i, o.Value)
			}
			values[o.Value] = true
		}
	}
	return v
}

// elementActionID is the action_id of a button or select.
func elementActionID(e slack.BlockElement) string {
	switch e := e.(type) {
	case *slack.ButtonBlockElement:
		return e.ActionID
	case *slack.SelectBlockElement:
		return e.ActionID
	}
	return ""
}

// blockID is the block_id of the block types kueuebot sends.
func blockID(b slack.Block) string {
	switch b := b.(type) {
	case *slack.HeaderBlock:
		return b.BlockID
	case *slack.SectionBlock:
		return b.BlockID
	case *slack.ContextBlock:
		return b.BlockID
	case *slack.ActionBlock:
		return b.BlockID
	case *slack.DividerBlock:
		return b.BlockID
	case *slack.TableBlock:
		return b.BlockID
	}
	return ""
}

// textLen is how many characters t's text has (0 for none).
func textLen(t *slack.TextBlockObject) int {
	if t == nil {
		return 0
	}
	return runeLen(t.Text)
}
