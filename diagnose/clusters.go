package diagnose

import "github.com/kueuebot/kueuebot/i18n"

// ClusterLook is what happened in one configured cluster when a question
// was looked for in several (package explain sets Report.Clusters).
type ClusterLook struct {
	// Cluster is the configured cluster's name.
	Cluster string `json:"cluster"`
	// Found is true when the job is there.
	Found bool `json:"found"`
	// Error, when set, is why the cluster could not be searched: it did
	// not answer in time, a read failed, or the caller is not mapped there.
	// A cluster with an Error is never counted as "not there".
	Error string `json:"error,omitempty"`
	// ErrorMsg is Error as a catalog message (ErrorIn renders it in the
	// asker's language); Error is its English.
	ErrorMsg i18n.Message `json:"-"`
}
