package diagnose

import (
	"fmt"
	"regexp"
	"strings"
)

// createRefusal is what refused a job controller's pods (its FailedCreate
// event), named: the ResourceQuota with the resources and numbers, the
// LimitRange rule, the PodSecurity level, the missing ServiceAccount.
type createRefusal struct {
	// what is the headline's clause, e.g. "the namespace's ResourceQuota
	// compute-quota refuses its pods: requests.cpu 1500m of 2 used, each
	// pod asks 1".
	what string
	// remedy and who say who can fix it.
	remedy string
	who    Who
}

var (
	// reQuotaExceeded is the ResourceQuota admission's refusal
	// (k8s.io/apiserver/pkg/admission/plugin/resourcequota).
	reQuotaExceeded = regexp.MustCompile(`exceeded quota: ([^,]+), requested: (\S+), used: (\S+), limited: (\S+?)\.?$`)
	// rePodSecurity is the PodSecurity admission's refusal.
	rePodSecurity = regexp.MustCompile(`violates PodSecurity "([^"]+)": (.*)$`)
	// reLimitRange is a LimitRanger refusal, e.g. "maximum cpu usage per
	// Container is 1, but limit is 2".
	reLimitRange = regexp.MustCompile(`((?:maximum|minimum) \S+ usage per (?:Container|Pod) is [^,\]]+, but (?:limit|request) is [^,\]\.]+|\S+ max limit to request ratio per (?:Container|Pod) is [^,\]]+, but provided ratio is [^,\]\.]+)`)
	// reNoServiceAccount is the ServiceAccount admission's refusal.
	reNoServiceAccount = regexp.MustCompile(`serviceaccount "([^"]+)" not found`)
)

// parseCreateRefusal reads a FailedCreate message; nil when it names
// nothing it knows.
func parseCreateRefusal(msg, ns string) *createRefusal {
	msg = strings.TrimSpace(msg)
	if m := reQuotaExceeded.FindStringSubmatch(msg); m != nil {
		name := strings.TrimSpace(m[1])
		requested, used, limited := keyValues(m[2]), keyValues(m[3]), keyValues(m[4])
		var parts []string
		for _, kv := range limited {
			u := lookup(used, kv[0])
			if u == "" {
				u = "0"
			}
			s := fmt.Sprintf("%s %s of %s used", kv[0], u, kv[1])
			if r := lookup(requested, kv[0]); r != "" {
				s += ", each pod asks " + r
			}
			parts = append(parts, s)
		}
		return &createRefusal{
			what:   fmt.Sprintf("the namespace's ResourceQuota %s refuses its pods: %s", name, strings.Join(parts, "; ")),
			remedy: fmt.Sprintf("Free room in ResourceQuota %s (delete finished pods or other jobs of namespace %s), or ask whoever manages the namespace's quota to raise it; the job controller retries by itself.", name, ns),
			who:    WhoYou,
		}
	}
	if m := rePodSecurity.FindStringSubmatch(msg); m != nil {
		return &createRefusal{
			what:   fmt.Sprintf("namespace %s enforces PodSecurity level %s, which refuses its pods: %s", ns, m[1], strings.TrimSuffix(m[2], ".")),
			remedy: fmt.Sprintf("Change the pod template to meet PodSecurity %s as the message says and recreate the job, or ask the platform team whether namespace %s should enforce another level (label pod-security.kubernetes.io/enforce).", m[1], ns),
			who:    WhoYou,
		}
	}
	if ms := reLimitRange.FindAllStringSubmatch(msg, -1); ms != nil {
		var rules []string
		for _, m := range ms {
			rules = append(rules, m[1])
		}
		return &createRefusal{
			what:   fmt.Sprintf("a LimitRange of namespace %s refuses its pods: %s", ns, strings.Join(rules, "; ")),
			remedy: fmt.Sprintf("Change the pod template's requests and limits to fit the LimitRange (kubectl describe limitrange -n %s) and recreate the job, or ask whoever manages the namespace to change it.", ns),
			who:    WhoYou,
		}
	}
	if m := reNoServiceAccount.FindStringSubmatch(msg); m != nil {
		return &createRefusal{
			what:   fmt.Sprintf("its pods use ServiceAccount %s, which does not exist in namespace %s", m[1], ns),
			remedy: fmt.Sprintf("Create ServiceAccount %s in namespace %s, or fix serviceAccountName in the pod template; the job controller retries by itself.", m[1], ns),
			who:    WhoYou,
		}
	}
	return nil
}

// keyValues splits "a=1,b=2" into pairs, in order.
func keyValues(s string) [][2]string {
	var out [][2]string
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	return out
}

func lookup(kvs [][2]string, k string) string {
	for _, kv := range kvs {
		if kv[0] == k {
			return kv[1]
		}
	}
	return ""
}
