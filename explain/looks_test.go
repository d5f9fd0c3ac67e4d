package explain

import (
	"slices"
	"testing"

	"github.com/kueuebot/kueuebot/diagnose"
)

// sameLooks reports whether got are the looks want (Cluster, Found,
// Error), and fails the test when a look's ErrorMsg is not its Error in
// English.
func sameLooks(t *testing.T, got, want []diagnose.ClusterLook) bool {
	t.Helper()
	for _, lk := range got {
		if s := lk.ErrorMsg.String(); s != lk.Error {
			t.Errorf("%s: ErrorMsg is %q in English, Error %q", lk.Cluster, s, lk.Error)
		}
	}
	return slices.EqualFunc(got, want, func(a, b diagnose.ClusterLook) bool {
		return a.Cluster == b.Cluster && a.Found == b.Found && a.Error == b.Error
	})
}

// SameLooks is sameLooks for the external tests.
var SameLooks = sameLooks
