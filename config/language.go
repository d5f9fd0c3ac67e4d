package config

import "github.com/kueuebot/kueuebot/i18n"

// Language configures the language of the bot's replies. Each reply is in
// the language the user asked to be answered in ("answer in English", the
// App Home menu; remembered in the ConfigMap kueuebot-lang of the bot's
// namespace), else the language of the question, else the user's Slack
// locale, else Default.
type Language struct {
	// Default is the language when nothing else tells (a bare job name
	// from a user whose Slack locale kueuebot does not answer in): en
	// (default), fr, ja or zh; a BCP 47 tag or POSIX locale such as
	// "ja-JP" or "fr_FR.UTF-8" is read for its language.
	Default string `mapstructure:"default"`
}

// DefaultLang is language.default as a language; English when unset.
func (c *Config) DefaultLang() i18n.Lang { return i18n.ParseOr(c.Language.Default, i18n.English) }

// LangOr is a channel's configured language (digests[].language,
// triage.language): v when set, else language.default.
func (c *Config) LangOr(v string) i18n.Lang { return i18n.ParseOr(v, c.DefaultLang()) }

func (c *Config) validateLanguage(errs *errList) {
	checkLanguage(errs, "language.default", c.Language.Default)
}

// checkLanguage reports a language key that names no language kueuebot
// answers in; empty is fine (the default).
func checkLanguage(errs *errList, key, v string) {
	if v == "" {
		return
	}
	if _, ok := i18n.Parse(v); !ok {
		errs.addf(key, "%q is not a language kueuebot answers in: want en, fr, ja or zh", v)
	}
}
