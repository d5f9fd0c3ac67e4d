package render

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/kueuebot/kueuebot/i18n"
)

// table aligns tab-separated cells in columns as text/tabwriter does
// (tabwriter.NewWriter(w, 0, 8, 2, ' ', 0): a column is as wide as its
// widest cell plus two spaces, the last cell of a line is not padded, a
// column block is a run of consecutive lines that have a cell in that
// column), but measures a cell in terminal columns rather than runes:
// Japanese and Chinese characters (East Asian Wide and Fullwidth, per
// golang.org/x/text/width) take two. tabwriter counts them as one, so a
// Japanese or Chinese table comes out misaligned. Use it as a tabwriter:
// Write the lines, then Flush.
type table struct {
	w   io.Writer
	buf bytes.Buffer
}

// newTable is a table writing to w.
func newTable(w io.Writer) *table { return &table{w: w} }

// Write buffers p until Flush.
func (t *table) Write(p []byte) (int, error) { return t.buf.Write(p) }

// tablePadding is the space between columns.
const tablePadding = 2

// Flush writes the buffered lines, aligned, and empties the buffer.
func (t *table) Flush() error {
	text := t.buf.String()
	t.buf.Reset()
	if text == "" {
		return nil
	}
	trailing := strings.HasSuffix(text, "\n")
	text = strings.TrimSuffix(text, "\n")
	var lines [][]string
	for _, l := range strings.Split(text, "\n") {
		lines = append(lines, strings.Split(l, "\t"))
	}
	var out strings.Builder
	formatColumns(&out, lines, nil)
	s := out.String()
	if !trailing {
		s = strings.TrimSuffix(s, "\n")
	}
	_, err := io.WriteString(t.w, s)
	return err
}

// formatColumns writes lines, whose first len(widths) columns have the
// given widths, finding the width of the next column block by block
// (text/tabwriter's format).
func formatColumns(out *strings.Builder, lines [][]string, widths []int) {
	column := len(widths)
	start := 0
	for i := 0; i < len(lines); i++ {
		if column >= len(lines[i])-1 {
			continue
		}
		writeLines(out, lines[start:i], widths)
		start = i
		w := 0
		for ; i < len(lines) && column < len(lines[i])-1; i++ {
			w = max(w, displayWidth(lines[i][column])+tablePadding)
		}
		formatColumns(out, lines[start:i], append(widths, w))
		start = i
		i--
	}
	writeLines(out, lines[start:], widths)
}

func writeLines(out *strings.Builder, lines [][]string, widths []int) {
	for _, cells := range lines {
		for j, c := range cells {
			out.WriteString(c)
			if j < len(widths) {
				out.WriteString(strings.Repeat(" ", max(0, widths[j]-displayWidth(c))))
			}
		}
		out.WriteByte('\n')
	}
}

// displayWidth is how many terminal columns s takes: two for each East
// Asian Wide or Fullwidth rune (CJK ideographs, kana, fullwidth
// punctuation such as "（" and "："), one for any other.
func displayWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r < utf8.RuneSelf {
			n++
			continue
		}
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// wrapL is wrap in language l. English and French break at spaces and
// count bytes (wrap). Japanese and Chinese count display columns
// (displayWidth) and may also break between two CJK characters, never
// before closing punctuation (。、）」 ...) nor after opening punctuation
// (（「 ...).
func wrapL(l i18n.Lang, s string, width int, indent string) string {
	if l != i18n.Japanese && l != i18n.Chinese {
		return wrap(s, width, indent)
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/16)
	buf := tokenPool.Get().(*[]cjkToken)
	tokens := cjkTokens((*buf)[:0], s)
	line := 0
	for i, t := range tokens {
		// need is the token with the tokens glued to it: what must fit.
		need := int(t.width)
		if t.space {
			need++
		}
		for _, g := range tokens[i+1:] {
			if !g.glued {
				break
			}
			need += int(g.width)
		}
		if i > 0 && line > 0 && line+need > width && !t.glued {
			b.WriteString("\n")
			b.WriteString(indent)
			line = 0
		} else if t.space && i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(s[t.start:t.end])
		line += int(t.width)
	}
	*buf = tokens
	tokenPool.Put(buf)
	return b.String()
}

// tokenPool keeps wrapL's token buffers: a long Japanese paragraph has a
// token per character.
var tokenPool = sync.Pool{New: func() any { return new([]cjkToken) }}

// cjkToken is a unit wrapL does not break: an ASCII or other narrow word,
// or one wide character, as the byte range [start, end) of the text (no
// pointer: a paragraph's tokens cost the garbage collector nothing). width
// is its width in terminal columns; space: a space stood before it;
// glued: no line break may come before it.
type cjkToken struct {
	start, end   int32
	width        int32
	space, glued bool
}

// cjkTokens appends the tokens of s to out.
func cjkTokens(out []cjkToken, s string) []cjkToken {
	start, n := -1, 0 // the narrow word being read: its first byte, its runes
	space, glueNext := false, false
	first := len(out)
	flush := func(end int) {
		if start >= 0 {
			out = append(out, cjkToken{start: int32(start), end: int32(end), width: int32(n), space: space, glued: glueNext && !space})
			start, n = -1, 0
			space, glueNext = false, false
		}
	}
	for i, r := range s {
		switch {
		case unicode.IsSpace(r):
			flush(i)
			space = len(out) > first
		case isWide(r):
			flush(i)
			out = append(out, cjkToken{start: int32(i), end: int32(i + utf8.RuneLen(r)), width: 2, space: space, glued: (glueNext && !space) || breaksNotBefore(r)})
			space, glueNext = false, breaksNotAfter(r)
		default:
			if start < 0 {
				if len(out) > first && !space {
					// A narrow word right after a wide character: a break
					// may come between them, unless it is closing punctuation.
					glueNext = glueNext || breaksNotBefore(r)
				}
				start = i
			}
			n++
		}
	}
	flush(len(s))
	return out
}

// noBreakBefore and noBreakAfter are the punctuation a line may not start
// with, and may not end with (JIS X 4051's kinsoku, in short).
var (
	noBreakBefore = runeSet("。、，．・：；？！）」』】〕〉》｝］ー々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ.,:;!?)]}%")
	noBreakAfter  = runeSet("（「『【〔〈《｛［([{")
)

// breaksNotBefore reports whether a line may not start with r; ideographs,
// most of a text, are answered without a lookup.
func breaksNotBefore(r rune) bool {
	if r >= 0x4E00 && r <= 0x9FFF {
		return false
	}
	return noBreakBefore[r]
}

// breaksNotAfter reports whether a line may not end with r.
func breaksNotAfter(r rune) bool {
	if r >= 0x3040 && r <= 0x9FFF { // kana and ideographs: none opens
		return false
	}
	return noBreakAfter[r]
}

func runeSet(s string) map[rune]bool {
	m := make(map[rune]bool, len(s))
	for _, r := range s {
		m[r] = true
	}
	return m
}

func isWide(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return false
	case r >= 0x3040 && r <= 0x30FF, r >= 0x4E00 && r <= 0x9FFF:
		// Kana and the unified ideographs are all East Asian Wide.
		return true
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return true
	}
	return false
}
