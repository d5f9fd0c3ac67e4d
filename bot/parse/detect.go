package parse

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NormalizePhrase folds an intent phrase (config triage.patterns) into the
// form SignalsStuckJob compares: normalized as questions are, trimmed and
// lower case. It returns "" for a phrase of only spaces.
func NormalizePhrase(p string) string {
	return strings.ToLower(strings.TrimSpace(normalize(p)))
}

// SignalsStuckJob reports whether text, a message posted in a support
// channel, signals a stuck job: it contains one of phrases (each
// normalized by NormalizePhrase), or it names a job unmistakably
// (kind/name, namespace/name, or a job word or kind before a name shaped
// like one, e.g. "job train-7"). Plain words that happen to follow "job"
// ("the job fair") or talk of queues ("the queue for lunch is long") are
// not job questions. Text over MaxShortcutLen characters never is.
func SignalsStuckJob(text string, phrases []string) bool {
	if !utf8.ValidString(text) || utf8.RuneCountInString(text) > MaxShortcutLen {
		return false
	}
	s := strings.ToLower(normalize(StripSlackMarkup(text)))
	// A link's address never says anything about a job.
	words := strings.Fields(s)
	words = slices.DeleteFunc(words, func(w string) bool { return strings.Contains(w, "://") })
	s = strings.Join(words, " ")
	for _, p := range phrases {
		if containsPhrase(s, p) {
			return true
		}
	}
	return namesJob(s)
}

// containsPhrase finds p in s; an end of p that is a letter or digit of a
// spaced script must be a word boundary in s.
func containsPhrase(s, p string) bool {
	first, _ := utf8.DecodeRuneInString(p)
	last, _ := utf8.DecodeLastRuneInString(p)
	for off := 0; off <= len(s)-len(p); {
		i := strings.Index(s[off:], p)
		if i < 0 {
			return false
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(p):])
		if (!wordRune(first) || i == 0 || !wordRune(before)) && (!wordRune(last) || i+len(p) == len(s) || !wordRune(after)) {
			return true
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		off = i + n
	}
	return false
}

// wordRune: a letter or digit of a script that separates words by spaces.
func wordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !isCJK(r)
}

// namesJob reports whether the message names a job unmistakably.
func namesJob(s string) bool {
	p := parser{toks: tokenize(s)}
	if _, err := p.parse(); err != nil {
		return false
	}
	for _, c := range p.cands {
		if !c.valid || c.tier < tierAfterJob {
			continue
		}
		shaped := shapeTier(c.name) == tierShaped && strings.ContainsFunc(c.name, unicode.IsLetter)
		if shaped || (p.kindSet && c.tier == tierAfterJob) {
			return true
		}
	}
	return false
}

// Triage reads a message posted in a support channel the bot
// triages: any length up to MaxShortcutLen, since people describe their
// problem at length. Errors are *Error values. Request.Lang is the
// language the message is written in, as for Text.
func Triage(text string) (Request, error) {
	if utf8.RuneCountInString(text) > MaxShortcutLen || !utf8.ValidString(text) {
		return Request{}, parseError("parse.triage.tooLong", example())
	}
	norm := normalize(StripSlackMarkup(text))
	toks := tokenize(norm)
	p := parser{toks: toks}
	r, err := p.parse()
	return withLang(r, toks, norm), err
}
