package diagnose

import (
	"regexp"
	"strconv"
	"strings"
)

// FlavorReasonKind classifies one reason in Kueue's flavor-assignment
// message.
type FlavorReasonKind string

// Reason kinds Kueue v0.17 writes (pkg/scheduler/flavorassigner).
const (
	ReasonResourceUnavailable FlavorReasonKind = "ResourceUnavailable" // resource <r> unavailable in ClusterQueue
	ReasonFlavorNotFound      FlavorReasonKind = "FlavorNotFound"      // flavor <f> not found
	ReasonUntoleratedTaint    FlavorReasonKind = "UntoleratedTaint"    // untolerated taint <t> in flavor <f>
	ReasonNodeAffinity        FlavorReasonKind = "NodeAffinity"        // flavor <f> doesn't match node affinity
	ReasonMaxCapacity         FlavorReasonKind = "MaxCapacity"         // insufficient quota ... > maximum capacity (<max>)
	ReasonUnusedQuota         FlavorReasonKind = "UnusedQuota"         // insufficient unused quota ..., <n> more needed
	ReasonTopology            FlavorReasonKind = "Topology"            // TAS reasons
	ReasonOther               FlavorReasonKind = "Other"
)

// FlavorReason is one parsed reason of a flavor-assignment message.
type FlavorReason struct {
	Kind     FlavorReasonKind
	PodSet   string
	Resource string
	Flavor   string
	// Taint is the taint text for UntoleratedTaint.
	Taint string
	// Needed is "<n>" of "<n> more needed"; Max, Request, Assumed are the
	// quantities of the maximum-capacity form. All as Kueue printed them.
	Needed, Max, Request, Assumed string
	Raw                           string
}

// ParsedMessage is what kueuebot understood of a Workload's QuotaReserved
// message.
type ParsedMessage struct {
	// Reasons of the flavor-assignment message, in message order.
	Reasons []FlavorReason
	// PendingPreemptions is N of ". Pending the preemption of N workload(s)".
	PendingPreemptions int
	// PreemptionFailed is set for "Preempting N workload(s) failed".
	PreemptionFailed bool
	// FailedAdmissionChecks: "The workload has failed admission checks".
	FailedAdmissionChecks bool
	// NamespaceMismatch: "Workload namespace doesn't match ClusterQueue selector".
	NamespaceMismatch bool
	// InvalidResources: "resources validation failed" or LimitRange errors.
	InvalidResources bool
	// Transient contention: "no longer fits after processing another
	// workload" or "overlapping preemption targets".
	Transient bool
	// InactiveClusterQueue: "ClusterQueue <cq> is inactive" (Pending form).
	InactiveClusterQueue bool
	// ClusterQueueNotFound: "ClusterQueue <cq> not found".
	ClusterQueueNotFound bool
	// PodSetError is the error of "failed to assign flavors to pod set <ps>: <error>".
	PodSetError string
}

var (
	rePodSetPart   = regexp.MustCompile(`^couldn't assign flavors to pod set ([^:]+): (.*)$`)
	rePodSetFailed = regexp.MustCompile(`^failed to assign flavors to pod set ([^:]+): (.*)$`)
	reUnavailable  = regexp.MustCompile(`^resource (\S+) unavailable in ClusterQueue$`)
	reFlavorNF     = regexp.MustCompile(`^flavor (\S+) not found$`)
	reTaint        = regexp.MustCompile(`^untolerated taint (.*) in flavor (\S+)$`)
	reAffinity     = regexp.MustCompile(`^flavor (\S+) doesn't match node affinity$`)
	reMaxCap       = regexp.MustCompile(`^insufficient quota for (\S+) in flavor (\S+), previously considered podsets requests \(([^)]*)\) \+ current podset request \(([^)]*)\) > maximum capacity \(([^)]*)\)$`)
	reMaxCapOld    = regexp.MustCompile(`^insufficient quota for (\S+) in flavor (\S+), request > maximum capacity \((\S+) > (\S+)\)$`)
	reUnused       = regexp.MustCompile(`^insufficient unused quota for (\S+) in flavor (\S+), (\S+) more needed$`)
	rePendingPre   = regexp.MustCompile(`\. Pending the preemption of (\d+) workload\(s\)$`)
	rePreemptFail  = regexp.MustCompile(`\. Preempting (\d+) workload\(s\) failed, will retry\.$`)
)

// ParseQuotaMessage parses the message Kueue writes on a pending Workload's
// QuotaReserved=False condition. It never fails: what it does not recognise
// is kept as ReasonOther.
func ParseQuotaMessage(msg string) ParsedMessage {
	var p ParsedMessage
	msg = strings.TrimSpace(msg)
	if m := rePendingPre.FindStringSubmatch(msg); m != nil {
		p.PendingPreemptions, _ = strconv.Atoi(m[1])
		msg = strings.TrimSuffix(msg, m[0])
	} else if m := rePreemptFail.FindStringSubmatch(msg); m != nil {
		p.PreemptionFailed = true
		msg = strings.TrimSuffix(msg, m[0])
	}
	switch {
	case msg == "":
		return p
	case msg == "The workload has failed admission checks":
		p.FailedAdmissionChecks = true
		return p
	case strings.HasPrefix(msg, "Workload namespace doesn't match ClusterQueue selector"):
		p.NamespaceMismatch = true
		return p
	case strings.HasPrefix(msg, "resources validation failed"),
		strings.HasPrefix(msg, "resources didn't satisfy LimitRange constraints"):
		p.InvalidResources = true
		return p
	case strings.HasPrefix(msg, "Workload no longer fits after processing another workload"),
		strings.HasPrefix(msg, "Workload has overlapping preemption targets"):
		p.Transient = true
		return p
	case strings.HasPrefix(msg, "ClusterQueue ") && strings.HasSuffix(msg, " is inactive"):
		p.InactiveClusterQueue = true
		return p
	case strings.HasPrefix(msg, "ClusterQueue ") && strings.HasSuffix(msg, " not found"):
		p.ClusterQueueNotFound = true
		return p
	}
	if m := rePodSetFailed.FindStringSubmatch(msg); m != nil {
		p.PodSetError = m[2]
		if strings.Contains(m[2], "TAS") || strings.Contains(strings.ToLower(m[2]), "topology") {
			p.Reasons = append(p.Reasons, FlavorReason{Kind: ReasonTopology, PodSet: m[1], Raw: m[2]})
		}
		return p
	}
	for _, part := range strings.Split(msg, "; ") {
		m := rePodSetPart.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		ps := m[1]
		for _, reason := range splitReasons(m[2]) {
			p.Reasons = append(p.Reasons, parseReason(ps, reason))
		}
	}
	return p
}

// splitReasons splits the ", "-joined reasons, keeping commas that belong
// inside a reason (the maximum-capacity form, taint structs, TAS details).
func splitReasons(s string) []string {
	starts := []string{
		"resource ", "flavor ", "untolerated taint ", "insufficient quota for ",
		"insufficient unused quota for ", "could not assign ", "Flavor \"", "topology \"",
		"no requested topology", "podset slice topology", "no topology domains", "invalid node selectors",
		"cannot find replacement",
	}
	parts := strings.Split(s, ", ")
	var out []string
	for _, part := range parts {
		isStart := false
		for _, st := range starts {
			if strings.HasPrefix(part, st) {
				isStart = true
				break
			}
		}
		if isStart || len(out) == 0 {
			out = append(out, part)
			continue
		}
		out[len(out)-1] += ", " + part
	}
	return out
}

func parseReason(ps, s string) FlavorReason {
	r := FlavorReason{PodSet: ps, Raw: s, Kind: ReasonOther}
	switch {
	case reUnavailable.MatchString(s):
		m := reUnavailable.FindStringSubmatch(s)
		r.Kind, r.Resource = ReasonResourceUnavailable, m[1]
	case reFlavorNF.MatchString(s):
		m := reFlavorNF.FindStringSubmatch(s)
		r.Kind, r.Flavor = ReasonFlavorNotFound, m[1]
	case reTaint.MatchString(s):
		m := reTaint.FindStringSubmatch(s)
		r.Kind, r.Taint, r.Flavor = ReasonUntoleratedTaint, m[1], m[2]
	case reAffinity.MatchString(s):
		m := reAffinity.FindStringSubmatch(s)
		r.Kind, r.Flavor = ReasonNodeAffinity, m[1]
	case reMaxCap.MatchString(s):
		m := reMaxCap.FindStringSubmatch(s)
		r.Kind, r.Resource, r.Flavor, r.Assumed, r.Request, r.Max = ReasonMaxCapacity, m[1], m[2], m[3], m[4], m[5]
	case reMaxCapOld.MatchString(s):
		m := reMaxCapOld.FindStringSubmatch(s)
		r.Kind, r.Resource, r.Flavor, r.Request, r.Max = ReasonMaxCapacity, m[1], m[2], m[3], m[4]
	case reUnused.MatchString(s):
		m := reUnused.FindStringSubmatch(s)
		r.Kind, r.Resource, r.Flavor, r.Needed = ReasonUnusedQuota, m[1], m[2], m[3]
	case strings.HasPrefix(s, "Flavor \""), strings.HasPrefix(s, "topology \""),
		strings.HasPrefix(s, "no requested topology"), strings.HasPrefix(s, "podset slice topology"),
		strings.HasPrefix(s, "no topology domains"):
		r.Kind = ReasonTopology
	}
	return r
}

func (p ParsedMessage) has(k FlavorReasonKind) bool {
	for _, r := range p.Reasons {
		if r.Kind == k {
			return true
		}
	}
	return false
}
