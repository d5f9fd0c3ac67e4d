package dispatch

import (
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

func TestCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "dispatch.")
	i18ntest.ProseOutsideCatalog(t, ".", nil)
}
