package blocks

import (
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// TestNoProseOutsideCatalog: the package's files build no English
// sentence outside the catalog.
func TestNoProseOutsideCatalog(t *testing.T) {
	allow := []i18ntest.Allow{
		// The English default of the details button, an ID's fallback.
		{File: "answer.go", Text: "Show quota and evidence"},
	}
	for _, p := range i18ntest.ProseLiterals(t, ".", allow) {
		t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
	}
}
