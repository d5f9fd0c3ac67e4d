package diagnose_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// notConverted are the files of package diagnose that still build English
// sentences outside the catalog: check's manifest errors, notes and
// LimitRange adjustments (planned.go), which the check report carries as
// English strings. Every other file builds its sentences through the
// catalog.
var notConverted = map[string]bool{"planned.go": true}

// allowedProse are literals of converted files that are not sentences a
// user reads: the English of Kueue's own message kueuebot quotes.
var allowedProse = []i18ntest.Allow{
	{File: "analyze.go", Text: "The workload has failed admission checks"},
	// the start of a reason in Kueue's flavor-assignment message, parsed.
	{File: "message.go", Text: "could not assign "},
}

// TestNoProseOutsideCatalog: the files of package diagnose (tests and
// notConverted aside) build no English sentence outside the catalog.
func TestNoProseOutsideCatalog(t *testing.T) {
	for _, p := range i18ntest.ProseLiterals(t, ".", allowedProse) {
		file := filepath.Base(strings.SplitN(p.Pos, ":", 2)[0])
		if !notConverted[file] && !strings.HasSuffix(file, "_test.go") {
			t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
		}
	}
}

// TestProseOutsideCatalogFails: the check sees a sentence built with
// fmt.Sprintf in a file of this package (it would pass if ProseLiterals
// found nothing at all): those of planned.go.
func TestProseOutsideCatalogFails(t *testing.T) {
	for _, p := range i18ntest.ProseLiterals(t, ".", nil) {
		if strings.HasPrefix(p.Pos, "planned.go:") {
			return
		}
	}
	t.Fatal("ProseLiterals found no prose in planned.go, which still holds some")
}
