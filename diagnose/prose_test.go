package diagnose_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// allowedProse are literals of converted files that are not sentences a
// user reads: the English of Kueue's own message kueuebot quotes.
var allowedProse = []i18ntest.Allow{
	{File: "analyze.go", Text: "The workload has failed admission checks"},
	// the start of a reason in Kueue's flavor-assignment message, parsed.
	{File: "message.go", Text: "could not assign "},
}

// TestNoProseOutsideCatalog: the files of package diagnose (tests aside)
// build no English sentence outside the catalog (i18ntest's own test shows
// that ProseLiterals finds one).
func TestNoProseOutsideCatalog(t *testing.T) {
	for _, p := range i18ntest.ProseLiterals(t, ".", allowedProse) {
		file := filepath.Base(strings.SplitN(p.Pos, ":", 2)[0])
		if !strings.HasSuffix(file, "_test.go") {
			t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
		}
	}
}
