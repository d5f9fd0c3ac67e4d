package diagnose

import (
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kueuebot/kueuebot/i18n"
)

// createRefusal is what refused a job controller's pods (its FailedCreate
// event), named: the ResourceQuota with the resources and numbers, the
// LimitRange rule, the PodSecurity level, the missing ServiceAccount.
type createRefusal struct {
	// what is the headline's clause, e.g. "the namespace's ResourceQuota
	// compute-quota refuses its pods: requests.cpu 1500m of 2 used, each
	// pod asks 1".
	what i18n.Message
	// remedy and who say who can fix it.
	remedy i18n.Message
	who    Who
	// quota names the ResourceQuota; limitRange is true for a LimitRange
	// refusal (named from the Snapshot by withObjects).
	quota      string
	limitRange bool
	// ns and rules are the namespace and the LimitRange rules the refusal
	// quotes, for withObjects to name the LimitRange.
	ns    string
	rules []i18n.Arg
	// status is what the ResourceQuota's status says now, for the detail;
	// zero when not read.
	status i18n.Message
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
		rules := i18n.List{Items: r.rules, Semicolons: true}
		if len(names) > 1 {
			r.what = msg("diagnose.refusal.lr.whatOneOf", nameList(names...), nsArg(ns), rules)
		} else {
			r.what = msg("diagnose.refusal.lr.whatNamed", i18n.Obj("LimitRange", ns, names[0]), nsArg(ns), rules)
		}
		r.remedy = msg("diagnose.refusal.lr.remedy", i18n.Verbatim("kubectl describe limitrange "+strings.Join(names, " ")+" -n "+ns))
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
			var parts []i18n.Arg
			for _, k := range keys {
				used := q.Status.Used[corev1.ResourceName(k)]
				hard := q.Status.Hard[corev1.ResourceName(k)]
				parts = append(parts, msg("diagnose.refusal.rq.statusPart", i18n.Name(k), i18n.Qty(used.String()), i18n.Qty(hard.String())))
			}
			r.status = msg("diagnose.refusal.rq.status", i18n.Obj("ResourceQuota", ns, q.Name), i18n.Commas(parts...))
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
func parseCreateRefusal(text, ns string) *createRefusal {
	text = strings.TrimSpace(text)
	if m := reQuotaExceeded.FindStringSubmatch(text); m != nil {
		name := strings.TrimSpace(m[1])
		requested, used, limited := keyValues(m[2]), keyValues(m[3]), keyValues(m[4])
		var parts []i18n.Arg
		for _, kv := range limited {
			u := lookup(used, kv[0])
			if u == "" {
				u = "0"
			}
			part := msg("diagnose.refusal.rq.part", i18n.Name(kv[0]), i18n.Qty(u), i18n.Qty(kv[1]))
			if r := lookup(requested, kv[0]); r != "" {
				part = msg("diagnose.refusal.rq.partAsks", i18n.Name(kv[0]), i18n.Qty(u), i18n.Qty(kv[1]), i18n.Qty(r))
			}
			parts = append(parts, part)
		}
		quota := i18n.Obj("ResourceQuota", ns, name)
		return &createRefusal{
			what:   msg("diagnose.refusal.rq.what", quota, i18n.List{Items: parts, Semicolons: true}),
			remedy: msg("diagnose.refusal.rq.remedy", quota, nsArg(ns)),
			who:    WhoYou,
			quota:  name,
		}
	}
	if m := rePodSecurity.FindStringSubmatch(text); m != nil {
		return &createRefusal{
			what:   msg("diagnose.refusal.ps.what", nsArg(ns), i18n.Name(m[1]), i18n.Verbatim(strings.TrimSuffix(m[2], "."))),
			remedy: msg("diagnose.refusal.ps.remedy", i18n.Name(m[1]), nsArg(ns)),
			who:    WhoYou,
		}
	}
	if ms := reLimitRange.FindAllStringSubmatch(text, -1); ms != nil {
		var rules []i18n.Arg
		for _, m := range ms {
			rules = append(rules, i18n.Verbatim(m[1]))
		}
		return &createRefusal{
			what:       msg("diagnose.refusal.lr.what", nsArg(ns), i18n.List{Items: rules, Semicolons: true}),
			remedy:     msg("diagnose.refusal.lr.remedy", i18n.Verbatim("kubectl describe limitrange -n "+ns)),
			who:        WhoYou,
			limitRange: true,
			ns:         ns,
			rules:      rules,
		}
	}
	if m := reNoServiceAccount.FindStringSubmatch(text); m != nil {
		return &createRefusal{
			what:   msg("diagnose.refusal.sa.what", i18n.Obj("ServiceAccount", ns, m[1]), nsArg(ns)),
			remedy: msg("diagnose.refusal.sa.remedy", i18n.Obj("ServiceAccount", ns, m[1]), nsArg(ns)),
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
