package diagnose_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

// convertedFiles build every user-visible sentence through the catalog:
// no English prose literal may appear in them outside it. Files not listed
// still hold some (see untranslatedCases in lang_cases_test.go); add a file
// here once it is converted.
var convertedFiles = []string{
	"catalog_analyze.go", "catalog_flavors.go", "catalog_queues.go", "catalog_quota.go", "catalog_requeue.go", "catalog_scheduling.go",
	"analyze.go", "checks_text.go", "eviction.go", "catalog_eviction.go", "podcreate.go", "catalog_podcreate.go", "noworkload.go", "perpod.go", "catalog_noworkload.go", "multikueue.go", "catalog_multikueue.go", "requests.go", "podcount.go", "catalog_requests.go", "check.go", "catalog_check.go", "flavors.go", "lang.go", "podsets.go", "preemption.go", "quotaeval.go", "quotaverdict.go", "scheduling.go",
}

// allowedProse are literals of converted files that are not sentences a
// user reads: the English of Kueue's own message kueuebot quotes.
var allowedProse = []i18ntest.Allow{
	{File: "analyze.go", Text: "The workload has failed admission checks"},
}

// TestNoProseOutsideCatalog: the converted files of package diagnose
// build no English sentence outside the catalog.
func TestNoProseOutsideCatalog(t *testing.T) {
	converted := map[string]bool{}
	for _, f := range convertedFiles {
		converted[f] = true
	}
	for _, p := range i18ntest.ProseLiterals(t, ".", allowedProse) {
		file := filepath.Base(strings.SplitN(p.Pos, ":", 2)[0])
		if converted[file] {
			t.Errorf("%s: English prose outside the catalog: %s", p.Pos, p.Text)
		}
	}
}

// TestProseOutsideCatalogFails: the check sees a sentence built with
// fmt.Sprintf in a file of this package (it would pass if ProseLiterals
// found nothing at all).
func TestProseOutsideCatalogFails(t *testing.T) {
	if len(i18ntest.ProseLiterals(t, ".", nil)) == 0 {
		t.Fatal("ProseLiterals found no prose in package diagnose, whose unconverted files still hold some")
	}
}
