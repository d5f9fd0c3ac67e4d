package i18n

import (
	"os"
	"strings"

	"golang.org/x/text/language"
)

// Lang is a language kueuebot answers in. The zero value is English.
type Lang uint8

// The languages kueuebot answers in. Chinese is Simplified Chinese (zh-Hans),
// the script of Kueue's and Kubernetes' Chinese documentation.
const (
	English Lang = iota
	French
	Japanese
	Chinese
)

// All lists every language, English first.
func All() []Lang { return []Lang{English, French, Japanese, Chinese} }

var (
	codes = [...]string{"en", "fr", "ja", "zh"}
	tags  = [...]language.Tag{language.English, language.French, language.Japanese, language.SimplifiedChinese}
	names = [...]string{"English", "Français", "日本語", "简体中文"}
)

// String is the language's two-letter code: "en", "fr", "ja", "zh". Parse
// reads it back.
func (l Lang) String() string {
	if int(l) < len(codes) {
		return codes[l]
	}
	return codes[English]
}

// Name is the language's name in itself ("Français", "日本語"), for menus.
func (l Lang) Name() string {
	if int(l) < len(names) {
		return names[l]
	}
	return names[English]
}

// Tag is the language's BCP 47 tag (zh is zh-Hans).
func (l Lang) Tag() language.Tag {
	if int(l) < len(tags) {
		return tags[l]
	}
	return tags[English]
}

// MarshalText writes the two-letter code, so a Lang reads and writes as "fr"
// in JSON, YAML and config.
func (l Lang) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads what Parse reads; an unknown language is an error.
func (l *Lang) UnmarshalText(b []byte) error {
	v, ok := Parse(string(b))
	if !ok {
		return &UnknownError{Value: string(b)}
	}
	*l = v
	return nil
}

// UnknownError is returned by UnmarshalText for a language kueuebot does not
// answer in.
type UnknownError struct{ Value string }

func (e *UnknownError) Error() string {
	return "unknown language " + strings.TrimSpace(e.Value) + " (want en, fr, ja or zh)"
}

// Parse reads a language from a BCP 47 tag ("fr", "ja-JP", "zh-Hans",
// "zh-CN", "en-US"), a POSIX locale ("fr_FR.UTF-8", "ja_JP.eucJP",
// "de_DE@euro"), a Slack locale ("ja-JP") or a language's name in English or
// in itself ("French", "français", "日本語", "中文"). Case does not matter. ok
// is false for anything else, including "C", "POSIX" and the empty string;
// use ParseOr for a fallback.
func Parse(s string) (l Lang, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return English, false
	}
	low := strings.ToLower(s)
	switch low {
	case "english", "anglais":
		return English, true
	case "french", "français", "francais":
		return French, true
	case "japanese", "日本語", "にほんご", "japonais":
		return Japanese, true
	case "chinese", "中文", "汉语", "漢語", "简体中文", "chinois":
		return Chinese, true
	case "c", "posix":
		return English, false
	}
	// POSIX: language[_territory][.codeset][@modifier].
	if i := strings.IndexAny(low, ".@"); i >= 0 {
		low = low[:i]
	}
	low = strings.ReplaceAll(low, "_", "-")
	primary, _, _ := strings.Cut(low, "-")
	switch primary {
	case "en":
		return English, true
	case "fr":
		return French, true
	case "ja", "jp":
		return Japanese, true
	case "zh", "cmn":
		return Chinese, true
	}
	return English, false
}

// ParseOr is Parse with a fallback for what Parse does not read.
func ParseOr(s string, fallback Lang) Lang {
	if l, ok := Parse(s); ok {
		return l
	}
	return fallback
}

// FromEnv is the language of the process's locale, as POSIX orders it: the
// first non-empty of LC_ALL, LC_MESSAGES and LANG decides; "C", "POSIX", an
// unset locale and a language kueuebot does not answer in are English. The
// CLI's --lang flag, when given, wins over it.
func FromEnv() Lang { return fromEnv(os.Getenv) }

func fromEnv(getenv func(string) string) Lang {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			return ParseOr(v, English)
		}
	}
	return English
}
