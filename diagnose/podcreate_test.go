package diagnose

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestParseCreateRefusal holds the names read from the API server's
// refusals of a job controller's pods (FailedCreate) to their wording.
func TestParseCreateRefusal(t *testing.T) {
	for _, tt := range []struct {
		msg, want string
	}{
		{`Error creating: pods "j-x" is forbidden: exceeded quota: compute-quota, requested: requests.cpu=1,requests.memory=1Gi, used: requests.cpu=1500m,requests.memory=0, limited: requests.cpu=2,requests.memory=4Gi`,
			"ResourceQuota compute-quota refuses its pods: requests.cpu 1500m of 2 used, each pod asks 1; requests.memory 0 of 4Gi used, each pod asks 1Gi"},
		{`Error creating: pods "j-x" is forbidden: violates PodSecurity "baseline:latest": privileged (container "main" must not set securityContext.privileged=true)`,
			"enforces PodSecurity level baseline:latest, which refuses its pods: privileged"},
		{`Error creating: pods "j-x" is forbidden: [maximum memory usage per Container is 1Gi, but limit is 2Gi, maximum cpu usage per Container is 1, but limit is 2]`,
			"refuses its pods: maximum memory usage per Container is 1Gi, but limit is 2Gi; maximum cpu usage per Container is 1, but limit is 2"},
		{`Error creating: pods "j-x" is forbidden: error looking up service account team-a/trainer: serviceaccount "trainer" not found`,
			"ServiceAccount trainer, which does not exist in namespace team-a"},
		{`Error creating: Internal error occurred: failed calling webhook`, ""},
	} {
		r := parseCreateRefusal(tt.msg, "team-a")
		switch {
		case tt.want == "" && r != nil:
			t.Errorf("%q: got %q, want nothing", tt.msg, r.what.String())
		case tt.want != "" && (r == nil || !strings.Contains(r.what.String(), tt.want)):
			t.Errorf("%q: got %+v, want it to say %q", tt.msg, r, tt.want)
		}
	}
}

// TestCreateRefusalWithObjects: with the namespace's LimitRanges and
// ResourceQuotas read, the refusal names the LimitRange and says what the
// ResourceQuota holds now.
func TestCreateRefusalWithObjects(t *testing.T) {
	s := &Snapshot{
		Target:      Target{Namespace: "team-a", Name: "j"},
		LimitRanges: []corev1.LimitRange{{ObjectMeta: metav1.ObjectMeta{Name: "container-max"}}},
		ResourceQuotas: []corev1.ResourceQuota{{ObjectMeta: metav1.ObjectMeta{Name: "compute-quota"}, Status: corev1.ResourceQuotaStatus{
			Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("2")},
			Used: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1500m")},
		}}},
	}
	lr := parseCreateRefusal(`Error creating: pods "j-x" is forbidden: maximum cpu usage per Container is 1, but limit is 2`, "team-a").withObjects(s)
	if want := "LimitRange container-max of namespace team-a refuses its pods"; !strings.Contains(lr.what.String(), want) {
		t.Errorf("what = %q, want it to say %q", lr.what.String(), want)
	}
	if want := "kubectl describe limitrange container-max -n team-a"; !strings.Contains(lr.remedy.String(), want) {
		t.Errorf("remedy = %q, want %q", lr.remedy.String(), want)
	}
	rq := parseCreateRefusal(`Error creating: pods "j-x" is forbidden: exceeded quota: compute-quota, requested: requests.cpu=1, used: requests.cpu=1500m, limited: requests.cpu=2`, "team-a").withObjects(s)
	if want := "ResourceQuota compute-quota now has requests.cpu 1500m of 2 used."; rq.status.String() != want {
		t.Errorf("status = %q, want %q", rq.status.String(), want)
	}
	if none := parseCreateRefusal(`Error creating: pods "j-x" is forbidden: exceeded quota: other, requested: requests.cpu=1, used: requests.cpu=0, limited: requests.cpu=1`, "team-a").withObjects(s); !none.status.IsZero() {
		t.Errorf("status of an unread quota = %q, want none", none.status.String())
	}
}
