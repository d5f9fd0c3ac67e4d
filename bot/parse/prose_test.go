package parse

import (
	"errors"
	"testing"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// TestCatalog: the parser's errors are catalog entries in four languages,
// and it builds no other English sentence a user reads: its word lists
// are what it recognises, not what it says.
func TestCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "parse.")
	i18ntest.ProseOutsideCatalog(t, ".", []i18ntest.Allow{
		{File: "lang.go", Text: "about after again..."},
		{File: "words.go", Text: "a about admit..."},
		{File: "words.go", Text: "wait waits waiting..."},
		{File: "request.go", Text: Example},
		{File: "request.go", Text: "why diagnose explain notify watch jobs list ls queues queue help"},
	})
}

// TestErrorsInEachLanguage: a parse error reads in the asker's language
// (UserMessageIn), what they typed and the commands set aside; its
// English is Error().
func TestErrorsInEachLanguage(t *testing.T) {
	for _, q := range []string{"why is Train-7 waiting?", "train-7 -n a -n b", "train-7 --force", "replicaset/foo", "/kueue why", "queue team-a train-7"} {
		_, err := Text(q)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("%q: %v, want a *Error", q, err)
		}
		if pe.UserMessageIn(i18n.English) != pe.Error() {
			t.Errorf("%q: English %q differs from Error() %q", q, pe.UserMessageIn(i18n.English), pe.Error())
		}
		for _, l := range i18n.All()[1:] {
			got := pe.UserMessageIn(l)
			if got == pe.Error() {
				t.Errorf("%q: the %s error is the English one", q, l)
			}
			i18ntest.AssertTranslated(t, l, got, pe.Message().Verbatims()...)
		}
	}
}
