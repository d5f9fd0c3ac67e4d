package fetch

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kueuebot/kueuebot/internal/kueuename"
)

// WorkloadName returns the name Kueue gives the Workload it creates for an
// owner object (a Job, JobSet, RayJob, plain Pod, ...): lower(kind)-name,
// truncated, followed by "-" and the first 5 hex digits of a SHA-1 over kind,
// group, name and UID. The version is not part of the name.
func WorkloadName(ownerName string, ownerUID types.UID, ownerGVK schema.GroupVersionKind) string {
	return kueuename.WorkloadName(ownerName, ownerUID, ownerGVK)
}
