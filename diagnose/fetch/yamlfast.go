package fetch

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastYAMLToJSON converts the block YAML that kubectl (sigs.k8s.io/yaml,
// go-yaml v2's emitter) writes into JSON, an order of magnitude faster than
// a general YAML parser: block mappings and sequences, plain, single- and
// double-quoted scalars (folded over several lines), literal block scalars
// (|, |-, |+), and empty {} and []. Plain scalars resolve as go-yaml v2
// resolves them (null, booleans in YAML 1.1 spellings, decimal, octal and
// hex integers, everything else a string). Anything else — anchors,
// aliases, tags, flow collections, folded block scalars, comments after a
// value, tabs, floats, timestamps, odd indentation — makes it return
// ok=false, and the caller uses sigs.k8s.io/yaml. When ok is true the JSON
// decodes to what sigs.k8s.io/yaml.YAMLToJSON's does (FuzzFastYAML holds
// the two to that).
func fastYAMLToJSON(doc []byte) (js []byte, ok bool) {
	p := &yparser{}
	if !p.split(doc) {
		return nil, false
	}
	p.out = make([]byte, 0, len(doc)+len(doc)/4)
	i := p.skipBlank(0)
	if i == len(p.lines) {
		return []byte("null"), true
	}
	next, ok := p.node(i, p.lines[i].indent, false)
	if !ok || p.skipBlank(next) != len(p.lines) {
		return nil, false
	}
	return p.out, true
}

// yline is one line: its indentation and its text without it (and without
// the line break).
type yline struct {
	indent int
	text   []byte
	// raw is text with its trailing spaces (a literal's content).
	raw []byte
	// blank is true for an empty or whitespace-only line.
	blank bool
	// comment is true for a line holding only a comment.
	comment bool
}

type yparser struct {
	lines []yline
	out   []byte
	// open is true when the document does not end with a line break.
	open bool
}

func (p *yparser) split(doc []byte) bool {
	if !printable(doc) {
		return false
	}
	p.open = len(doc) > 0 && doc[len(doc)-1] != '\n'
	for off := 0; off < len(doc); {
		end := bytes.IndexByte(doc[off:], '\n')
		var raw []byte
		if end < 0 {
			raw, off = doc[off:], len(doc)
		} else {
			raw, off = doc[off:off+end], off+end+1
		}
		if bytes.IndexByte(raw, '\r') >= 0 || bytes.IndexByte(raw, '\t') >= 0 {
			return false
		}
		text := bytes.TrimLeft(raw, " ")
		l := yline{indent: len(raw) - len(text), text: text, raw: text}
		trimmed := bytes.TrimRight(text, " ")
		l.blank = len(trimmed) == 0
		l.comment = !l.blank && trimmed[0] == '#'
		if l.indent == 0 && (bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) || bytes.HasPrefix(text, []byte("%"))) {
			return false
		}
		if !l.blank {
			l.text = trimmed
		}
		p.lines = append(p.lines, l)
	}
	return true
}

// skipBlank returns the first line from i that is neither blank nor a
// comment.
// printableRune is go-yaml's is_printable for a rune past ASCII.
func printableRune(r rune) bool {
	return r == 0x85 || r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF || r >= 0x10000 && r <= 0x10FFFF
}

// printable reports whether doc holds only what go-yaml accepts: valid
// UTF-8 of printable characters (its is_printable), line breaks, no BOM.
func printable(doc []byte) bool {
	for i := 0; i < len(doc); {
		c := doc[i]
		if c < utf8.RuneSelf {
			if c != '\n' && (c < 0x20 || c == 0x7f) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		if !printableRune(r) {
			return false
		}
		i += size
	}
	return true
}

func (p *yparser) skipBlank(i int) int {
	for i < len(p.lines) && (p.lines[i].blank || p.lines[i].comment) {
		i++
	}
	return i
}

func isEntry(text []byte) bool {
	return bytes.HasPrefix(text, []byte("- ")) || len(text) == 1 && text[0] == '-'
}

// node writes the block node starting at line i, whose content is at
// column col (for a sequence item's inline mapping, col is past "- "), and
// returns the line after it.
func (p *yparser) node(i, col int, inline bool) (int, bool) {
	l := p.lines[i]
	text := l.text
	if inline {
		text = l.text[col-l.indent:]
	}
	if isEntry(text) {
		if inline {
			return 0, false // "- - x": nested sequences inline
		}
		return p.sequence(i, col)
	}
	if _, _, isKey := splitKey(text); isKey {
		return p.mapping(i, col, inline)
	}
	return 0, false // a bare scalar document or item: not kubectl's shape
}

func (p *yparser) sequence(i, col int) (int, bool) {
	p.out = append(p.out, '[')
	first := true
	for {
		i = p.skipBlank(i)
		if i == len(p.lines) || p.lines[i].indent != col || !isEntry(p.lines[i].text) {
			break
		}
		if !first {
			p.out = append(p.out, ',')
		}
		first = false
		l := p.lines[i]
		rest := bytes.TrimLeft(l.text[1:], " ")
		switch {
		case len(rest) == 0:
			// The item is on the next lines, more indented.
			j := p.skipBlank(i + 1)
			if j == len(p.lines) || p.lines[j].indent <= col {
				p.out = append(p.out, "null"...)
				i++
				continue
			}
			next, ok := p.node(j, p.lines[j].indent, false)
			if !ok {
				return 0, false
			}
			i = next
		default:
			itemCol := col + (len(l.text) - len(rest))
			if _, _, isKey := splitKey(rest); isKey {
				next, ok := p.mapping(i, itemCol, true)
				if !ok {
					return 0, false
				}
				i = next
				continue
			}
			if isEntry(rest) {
				return 0, false
			}
			next, ok := p.scalar(i, rest, col)
			if !ok {
				return 0, false
			}
			i = next
		}
	}
	p.out = append(p.out, ']')
	return i, true
}

// splitKey cuts "key: value" or "key:" into the key and the rest.
func splitKey(text []byte) (key, rest []byte, ok bool) {
	if len(text) == 0 {
		return nil, nil, false
	}
	switch text[0] {
	case '"', '\'':
		end := quotedEnd(text)
		if end < 0 || end+1 >= len(text) || text[end+1] != ':' || end+2 < len(text) && text[end+2] != ' ' {
			return nil, nil, false
		}
		return text[:end+1], bytes.TrimLeft(text[end+2:], " "), true
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`':
		return nil, nil, false
	}
	for j := 0; j < len(text); j++ {
		if text[j] == ':' && (j+1 == len(text) || text[j+1] == ' ') {
			return bytes.TrimRight(text[:j], " "), bytes.TrimLeft(text[j+1:], " "), true
		}
		if text[j] == '#' && j > 0 && text[j-1] == ' ' {
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// quotedEnd returns the index of the quote closing the one-line quoted
// scalar at text[0], or -1.
func quotedEnd(text []byte) int {
	q := text[0]
	for j := 1; j < len(text); j++ {
		switch {
		case q == '\'' && text[j] == '\'':
			if j+1 < len(text) && text[j+1] == '\'' {
				j++
				continue
			}
			return j
		case q == '"' && text[j] == '\\':
			j++
		case q == '"' && text[j] == '"':
			return j
		}
	}
	return -1
}

func (p *yparser) mapping(i, col int, inline bool) (int, bool) {
	p.out = append(p.out, '{')
	first := true
	// A repeated key is left to go-yaml: JSON decoders would merge the
	// two values where go-yaml keeps the last.
	var keys []string
	for {
		if !inline {
			i = p.skipBlank(i)
			if i == len(p.lines) || p.lines[i].indent != col {
				break
			}
		}
		l := p.lines[i]
		text := l.text[col-l.indent:]
		if inline {
			inline = false
		}
		key, rest, ok := splitKey(text)
		if !ok {
			if isEntry(text) {
				break // the parent sequence's next item
			}
			return 0, false
		}
		name, ok := p.keyString(key)
		if !ok || slices.Contains(keys, name) {
			return 0, false
		}
		keys = append(keys, name)
		if !first {
			p.out = append(p.out, ',')
		}
		first = false
		p.out = appendJSONString(p.out, name)
		p.out = append(p.out, ':')
		if len(rest) > 0 {
			next, ok := p.scalar(i, rest, col)
			if !ok {
				return 0, false
			}
			i = next
			continue
		}
		// The value is on the next lines: more indented, or a sequence at
		// the key's own column (as kubectl writes them).
		j := p.skipBlank(i + 1)
		switch {
		case j < len(p.lines) && p.lines[j].indent > col:
			next, ok := p.node(j, p.lines[j].indent, false)
			if !ok {
				return 0, false
			}
			i = next
		case j < len(p.lines) && p.lines[j].indent == col && isEntry(p.lines[j].text):
			next, ok := p.sequence(j, col)
			if !ok {
				return 0, false
			}
			i = next
		default:
			p.out = append(p.out, "null"...)
			i++
		}
	}
	p.out = append(p.out, '}')
	return i, true
}

// keyString resolves a mapping key as sigs.k8s.io/yaml does: strings as
// they are, booleans and integers as their JSON text.
func (p *yparser) keyString(key []byte) (string, bool) {
	if key[0] == '"' || key[0] == '\'' {
		s, ok := unquoteLine(key)
		return s, ok
	}
	s := string(key)
	if s == "<<" {
		return "", false // a merge key
	}
	switch v := resolvePlain(s).(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false // null or unsupported keys
}

// errUnsupported marks a plain scalar resolvePlain does not handle.
type errUnsupported struct{}

// resolvePlain resolves a plain scalar as go-yaml v2 does for an
// interface{} target: nil, bool, int64 or string; errUnsupported for
// floats, timestamps, unsigned and binary integers (left to go-yaml).
func resolvePlain(s string) any {
	if s == "" {
		return nil
	}
	switch s[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		switch s {
		case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
			return true
		case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
			return false
		case "~", "null", "Null", "NULL":
			return nil
		}
		return s
	case '.':
		switch s {
		case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF":
			return errUnsupported{}
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return errUnsupported{}
		}
		return s
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		switch s {
		case "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
			return errUnsupported{}
		}
		if _, ok := parseTimestampLike(s); ok {
			return errUnsupported{}
		}
		plain := strings.ReplaceAll(s, "_", "")
		if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return v
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return errUnsupported{}
		}
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return errUnsupported{}
		}
		if strings.HasPrefix(plain, "0b") || strings.HasPrefix(plain, "-0b") {
			return errUnsupported{}
		}
		return s
	}
	return s
}

// parseTimestampLike reports values go-yaml may read as a timestamp (they
// start with four digits and a dash).
func parseTimestampLike(s string) (struct{}, bool) {
	if len(s) >= 5 && s[4] == '-' {
		for j := range 4 {
			if s[j] < '0' || s[j] > '9' {
				return struct{}{}, false
			}
		}
		return struct{}{}, true
	}
	return struct{}{}, false
}

// scalar writes the value starting at rest on line i, in a node at column
// col, and returns the line after it.
func (p *yparser) scalar(i int, rest []byte, col int) (int, bool) {
	switch rest[0] {
	case '"', '\'':
		return p.quoted(i, rest, col)
	case '|':
		return p.literal(i, rest, col)
	case '{', '[':
		if len(rest) == 2 && (rest[0] == '{' && rest[1] == '}' || rest[0] == '[' && rest[1] == ']') {
			p.out = append(p.out, rest...)
			return i + 1, true
		}
		return 0, false
	case '-', '?', ':', ',', ']', '}', '#', '&', '*', '!', '>', '%', '@', '`':
		if rest[0] == '-' && len(rest) > 1 && rest[1] != ' ' {
			break // "-1", "-x": a plain scalar
		}
		return 0, false
	}
	// A plain scalar, folded over continuation lines more indented than
	// col.
	var b strings.Builder
	b.Write(rest)
	j := i + 1
	breaks := 0
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		if l.blank {
			breaks++
			continue
		}
		if l.indent <= col || l.comment {
			break
		}
		if breaks == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(strings.Repeat("\n", breaks))
		}
		breaks = 0
		b.Write(l.text)
	}
	if breaks > 0 {
		// Blank lines after the scalar belong to what follows; step back
		// so the caller sees them (they are skipped anyway).
		j -= breaks
	}
	s := b.String()
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return 0, false
	}
	switch v := resolvePlain(s).(type) {
	case nil:
		p.out = append(p.out, "null"...)
	case bool:
		p.out = strconv.AppendBool(p.out, v)
	case int64:
		p.out = strconv.AppendInt(p.out, v, 10)
	case string:
		p.out = appendJSONString(p.out, v)
	default:
		return 0, false
	}
	return j, true
}

// quoted writes a single- or double-quoted scalar, possibly folded over
// several lines.
func (p *yparser) quoted(i int, rest []byte, col int) (int, bool) {
	q := rest[0]
	var b strings.Builder
	text := rest[1:]
	j := i
	for {
		// Scan text for the closing quote.
		k := 0
		for ; k < len(text); k++ {
			c := text[k]
			if q == '\'' && c == '\'' {
				if k+1 < len(text) && text[k+1] == '\'' {
					b.WriteByte('\'')
					k++
					continue
				}
				break
			}
			if q == '"' && c == '\\' {
				if k+1 == len(text) {
					return 0, false // an escaped line break
				}
				n, ok := unescape(&b, text[k+1:])
				if !ok {
					return 0, false
				}
				k += n
				continue
			}
			if q == '"' && c == '"' {
				break
			}
			b.WriteByte(c)
		}
		if k < len(text) {
			// Closed: nothing but spaces may follow.
			if len(bytes.TrimRight(text[k+1:], " ")) > 0 {
				return 0, false
			}
			break
		}
		// Folded onto the next line: trailing spaces of this line and the
		// indentation of the next are dropped; a line break becomes a
		// space, blank lines become line breaks.
		s := strings.TrimRight(b.String(), " ")
		b.Reset()
		b.WriteString(s)
		breaks := 0
		j++
		for ; j < len(p.lines) && p.lines[j].blank; j++ {
			breaks++
		}
		if j == len(p.lines) || p.lines[j].indent <= col {
			return 0, false
		}
		if breaks == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(strings.Repeat("\n", breaks))
		}
		text = p.lines[j].text
	}
	p.out = appendJSONString(p.out, b.String())
	return j + 1, true
}

// unescape writes the double-quoted escape at esc (after the backslash)
// and returns how many bytes it used.
func unescape(b *strings.Builder, esc []byte) (int, bool) {
	switch esc[0] {
	case '0':
		b.WriteByte(0)
	case 'a':
		b.WriteByte('\a')
	case 'b':
		b.WriteByte('\b')
	case 't':
		b.WriteByte('\t')
	case 'n':
		b.WriteByte('\n')
	case 'v':
		b.WriteByte('\v')
	case 'f':
		b.WriteByte('\f')
	case 'r':
		b.WriteByte('\r')
	case 'e':
		b.WriteByte(0x1b)
	case ' ', '"', '/', '\\':
		b.WriteByte(esc[0])
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[esc[0]]
		if len(esc) < 1+n {
			return 0, false
		}
		v, err := strconv.ParseUint(string(esc[1:1+n]), 16, 32)
		if err != nil || v > utf8.MaxRune || v >= 0xD800 && v <= 0xDFFF {
			return 0, false
		}
		b.WriteRune(rune(v))
		return 1 + n, true
	default:
		return 0, false // \N, \_, \L, \P and the rest: left to go-yaml
	}
	return 1, true
}

// unquoteLine unquotes a one-line quoted key.
func unquoteLine(key []byte) (string, bool) {
	p := &yparser{lines: []yline{{text: key}}}
	p.out = nil
	next, ok := p.quoted(0, key, 0)
	if !ok || next != 1 {
		return "", false
	}
	var s string
	if err := json.Unmarshal(p.out, &s); err != nil {
		return "", false
	}
	return s, true
}

// literal writes a literal block scalar (|, |- or |+).
func (p *yparser) literal(i int, rest []byte, col int) (int, bool) {
	chomp := byte(0)
	switch string(rest) {
	case "|":
	case "|-":
		chomp = '-'
	case "|+":
		chomp = '+'
	default:
		return 0, false // indentation indicators, comments
	}
	j := i + 1
	// The content's indentation is the first non-blank line's.
	k := j
	for k < len(p.lines) && p.lines[k].blank {
		k++
	}
	var lines []string
	if k < len(p.lines) && p.lines[k].indent > col {
		ind := p.lines[k].indent
		for ; j < len(p.lines); j++ {
			l := p.lines[j]
			if l.blank {
				// A blank line keeps what is past the indentation of
				// its own spaces, if any (not written by kubectl).
				if l.indent > ind {
					return 0, false
				}
				lines = append(lines, "")
				continue
			}
			if l.indent < ind {
				break
			}
			lines = append(lines, strings.Repeat(" ", l.indent-ind)+string(l.raw))
		}
	} else {
		for j < len(p.lines) && p.lines[j].blank {
			j++
			lines = append(lines, "")
		}
	}
	if j == len(p.lines) && p.open {
		return 0, false // the last line has no line break to keep or clip
	}
	// Trailing blank lines: chomping decides.
	content := len(lines)
	for content > 0 && lines[content-1] == "" {
		content--
	}
	if content == 0 && chomp == '+' {
		return 0, false
	}
	s := strings.Join(lines[:content], "\n")
	switch chomp {
	case 0:
		if content > 0 {
			s += "\n"
		}
	case '+':
		if content > 0 || len(lines) > 0 {
			s += strings.Repeat("\n", len(lines)-content+1)
		}
	}
	// Blank lines after the content belong to what follows unless kept.
	p.out = appendJSONString(p.out, s)
	if chomp != '+' {
		j -= len(lines) - content
	}
	return j, true
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML escaping off.
func appendJSONString(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, `\u00`...)
				out = append(out, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			out = append(out, `\u202`...)
			out = append(out, "0123456789abcdef"[r&0xf])
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return append(out, '"')
}
