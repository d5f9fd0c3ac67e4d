package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// TestDigestProseInCatalog: the digest's text and Markdown (digest.go)
// build no English sentence outside the catalog; NotDrainingTitle is the
// English of its entry, kept for callers.
func TestDigestProseInCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "render.digest.")
	for _, p := range i18ntest.ProseLiterals(t, ".", []i18ntest.Allow{{File: "digest.go", Text: NotDrainingTitle}}) {
		if filepath.Base(strings.SplitN(p.Pos, ":", 2)[0]) == "digest.go" {
			t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
		}
	}
}
