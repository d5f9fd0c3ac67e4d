package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
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
	// quota names the ResourceQuota; limitRange is true for a LimitRange
	// refusal (named from the Snapshot by withObjects).
	quota      string
	limitRange bool
	// status is what the ResourceQuota's status says now, for the detail;
	// "" when not read.
	status string
}

// withObjects names, from the namespace's objects in the Snapshot, what the
// event does not: the LimitRange (by name) behind a LimitRange refusal,
// and what a ResourceQuota holds now (its status).
func (r *createRefusal) withObjects(s *Snapshot) *createRefusal {
	if r == nil {
		return nil
	}
	ns := s.Target.Namespace
	if r.limitRange && len(s.LimitRanges) > 0 {
		names := make([]string, 0, len(s.LimitRanges))
		for _, lr := range s.LimitRanges {
			names = append(names, lr.Name)
		}
		which := "LimitRange " + names[0]
		if len(names) > 1 {
			which = "one of the LimitRanges " + strings.Join(names, ", ")
		}
		r.what = strings.Replace(r.what, "a LimitRange of namespace "+ns, which+" of namespace "+ns, 1)
		r.remedy = strings.Replace(r.remedy, "kubectl describe limitrange -n "+ns, "kubectl describe limitrange "+strings.Join(names, " ")+" -n "+ns, 1)
	}
	if r.quota != "" {
		for _, q := range s.ResourceQuotas {
			if q.Name != r.quota || len(q.Status.Hard) == 0 {
				continue
			}
			keys := make([]string, 0, len(q.Status.Hard))
			for k := range q.Status.Hard {
				keys = append(keys, string(k))
			}
			slices.Sort(keys)
			var parts []string
			for _, k := range keys {
				used := q.Status.Used[corev1.ResourceName(k)]
				hard := q.Status.Hard[corev1.ResourceName(k)]
				parts = append(parts, fmt.Sprintf("%s %s of %s", k, used.String(), hard.String()))
			}
			r.status = fmt.Sprintf("ResourceQuota %s now has %s used.", q.Name, strings.Join(parts, ", "))
		}
	}
	return r
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
			quota:  name,
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
			what:       fmt.Sprintf("a LimitRange of namespace %s refuses its pods: %s", ns, strings.Join(rules, "; ")),
			remedy:     fmt.Sprintf("Change the pod template's requests and limits to fit the LimitRange (kubectl describe limitrange -n %s) and recreate the job, or ask whoever manages the namespace to change it.", ns),
			who:        WhoYou,
			limitRange: true,
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
