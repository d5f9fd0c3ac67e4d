package diagnose

import (
	"strings"
	"testing"
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
			t.Errorf("%q: got %q, want nothing", tt.msg, r.what)
		case tt.want != "" && (r == nil || !strings.Contains(r.what, tt.want)):
			t.Errorf("%q: got %+v, want it to say %q", tt.msg, r, tt.want)
		}
	}
}
