package fetch

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
)

// JobDeadlines returns the run-time limit of every batch Job of the store
// that sets one (spec.activeDeadlineSeconds), by the Job's UID: what an
// estimate needs of the Jobs the LISTs already read (diagnose.Forecast
// matches a Workload to its Job by ownerReference).
func (s *Store) JobDeadlines() map[types.UID]time.Duration {
	idx := s.lookup(gkBatchJob)
	if idx == nil {
		return nil
	}
	out := map[types.UID]time.Duration{}
	for _, it := range idx.List() {
		var (
			uid  types.UID
			spec *batchv1.JobSpec
		)
		switch j := it.(type) {
		case *jobRecord:
			uid, spec = j.UID, j.spec
		case *batchv1.Job:
			uid, spec = j.UID, &j.Spec
		}
		if spec != nil && spec.ActiveDeadlineSeconds != nil && *spec.ActiveDeadlineSeconds > 0 && uid != "" {
			out[uid] = time.Duration(*spec.ActiveDeadlineSeconds) * time.Second
		}
	}
	return out
}
