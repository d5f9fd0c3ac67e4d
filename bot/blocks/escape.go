package blocks

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// Escape makes untrusted text safe inside Slack mrkdwn: it encodes the only
// three special characters, &, < and >. That neutralises <!channel>,
// <!here>, <@U...>, <!subteam^...> and links.
func Escape(s string) string { return mrkdwnEscaper.Replace(s) }

// unescape reverses Escape (for the terminal rendering).
var unescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// None is how an absent value is shown.
const None = "<none>"

// Code renders untrusted text as inline code: escaped, on one line, with
// backticks replaced by a look-alike so the span cannot be closed early.
// Empty text renders as _<none>_.
func Code(s string) string {
	if s == "" {
		return "_" + Escape(None) + "_"
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '`':
			return 'ˋ'
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
	return "`" + Escape(s) + "`"
}

// CodeBlock renders untrusted text as a preformatted block: escaped, with
// any ``` sequence broken so the block cannot be closed early.
func CodeBlock(s string) string {
	s = strings.ReplaceAll(s, "```", "ˋˋˋ")
	return "```\n" + Escape(s) + "\n```"
}

// Line makes untrusted text safe as plain mrkdwn on one line: escaped, with
// control characters and line breaks turned into spaces and ``` broken so
// it cannot open a code block.
func Line(s string) string {
	s = strings.ReplaceAll(s, "```", "ˋˋˋ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return Escape(s)
}

// Paragraph makes untrusted multi-line text safe as mrkdwn: escaped, with
// ``` broken so it cannot open a code block. Line breaks are kept.
func Paragraph(s string) string {
	return Escape(strings.ReplaceAll(s, "```", "ˋˋˋ"))
}

// mrkdwn builds a verbatim mrkdwn text object (no automatic linking of
// channel names, URLs or mentions). The text must already be escaped.
func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, true)
}

// plain builds a plain_text object. Plain text is never parsed for
// mentions or links, so it is not escaped.
func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, true, false)
}

// truncate shortens s to at most n characters, ending with "…". It never
// cuts an HTML entity in half and keeps ``` fences balanced.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	cut := func(m int) string {
		r := []rune(s)
		if m > len(r) {
			m = len(r)
		}
		if m < 0 {
			m = 0
		}
		out := string(r[:m])
		// Do not leave half an entity such as "&am".
		if i := strings.LastIndexByte(out, '&'); i >= 0 && len(out)-i <= 5 && !strings.Contains(out[i:], ";") {
			out = out[:i]
		}
		return out
	}
	out := cut(n-1) + "…"
	if strings.Count(out, "```")%2 == 1 {
		const closing = "…\n```"
		out = cut(n - utf8.RuneCountInString(closing))
		if strings.Count(out, "```")%2 == 1 {
			out += closing
		} else {
			out += "…"
		}
	}
	return out
}
