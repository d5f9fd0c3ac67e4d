package main

import (
	"log/slog"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot"
	"github.com/kueuebot/kueuebot/bot/leader"
	"github.com/kueuebot/kueuebot/bot/prefs"
	"github.com/kueuebot/kueuebot/config"
)

// newLanguages builds the choice of each reply's language for `serve`:
// users' remembered choices in the ConfigMap kueuebot-lang of the bot's
// namespace (when it has one: POD_NAMESPACE, and not serving dumps), their
// Slack locales (users.info with include_locale), and language.default.
func newLanguages(cfg *config.Config, api *slack.Client, log *slog.Logger, e *leader.Election) *bot.Languages {
	ls := &bot.Languages{Locales: &bot.SlackLocales{API: api}, Default: cfg.DefaultLang(), Log: log}
	if e != nil && e.Client != nil && e.Namespace != "" {
		ls.Prefs = &prefs.Store{Client: e.Client, Namespace: e.Namespace}
	}
	if ls.Prefs == nil {
		log.Info("users' language choices are not remembered: no namespace of the bot's (POD_NAMESPACE), or serving dumps")
	}
	log.Info("replies' language", slog.String("default", ls.Default.String()), slog.Bool("remembered", ls.Prefs != nil))
	return ls
}
