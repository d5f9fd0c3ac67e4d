package bot

import (
	"context"
	"testing"

	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// TestNoProseOutsideCatalog: package bot builds no English sentence a
// user reads outside the catalog, the terminal chat's greeting included.
func TestNoProseOutsideCatalog(t *testing.T) {
	i18ntest.ProseOutsideCatalog(t, ".", nil)
}

// TestNoticeLang: the dispatcher's notices are in the language the
// question is written in, else language.default, with no request.
func TestNoticeLang(t *testing.T) {
	ls := &Languages{Default: i18n.Japanese, Locales: &SlackLocales{API: &fakeUsers{}}}
	for text, want := range map[string]i18n.Lang{
		"pourquoi train-7 attend ?": i18n.French,
		"why is train-7 waiting?":   i18n.English,
		"为什么train-7在等待？":            i18n.Chinese,
		"train-7":                   i18n.Japanese,
		"":                          i18n.Japanese,
	} {
		if got := ls.NoticeLang(&event.Event{Text: text}); got != want {
			t.Errorf("NoticeLang(%q) = %v, want %v", text, got, want)
		}
	}
	var none *Languages
	if got := none.NoticeLang(&event.Event{Text: "train-7"}); got != i18n.English {
		t.Errorf("no Languages: %v", got)
	}
	// For asks the caches, not Slack, for every DM after the first.
	users := &fakeUsers{locales: map[string]string{"U1": "zh-CN"}}
	ls = &Languages{Locales: &SlackLocales{API: users}}
	for range 5 {
		if got := ls.For(context.Background(), "U1"); got != i18n.Chinese {
			t.Fatalf("For = %v, want the Slack locale's", got)
		}
	}
	if users.calls != 1 {
		t.Errorf("users.info called %d times for 5 DMs, want 1", users.calls)
	}
}
