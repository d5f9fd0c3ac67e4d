package digests

import (
	"testing"

	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

func TestNoProseOutsideCatalog(t *testing.T) { i18ntest.ProseOutsideCatalog(t, ".", nil) }
