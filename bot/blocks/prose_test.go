package blocks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// notConverted are files of this package another change converts (the
// "Will this fit?" answer); the test lets the list only shrink.
var notConverted = map[string]bool{"fit.go": true}

// TestNoProseOutsideCatalog: the package's converted files build no
// English sentence outside the catalog.
func TestNoProseOutsideCatalog(t *testing.T) {
	allow := []i18ntest.Allow{
		// The English default of the details button, an ID's fallback.
		{File: "answer.go", Text: "Show quota and evidence"},
	}
	for _, p := range i18ntest.ProseLiterals(t, ".", allow) {
		if !notConverted[filepath.Base(strings.SplitN(p.Pos, ":", 2)[0])] {
			t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
		}
	}
}
