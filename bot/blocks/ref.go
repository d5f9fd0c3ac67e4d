package blocks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/slack-go/slack"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/kinds"
)

// Action IDs of the interactive elements kueuebot sends. A button's value
// and a picker option's value carry a JobRef and nothing else: never an
// identity. Whoever presses is resolved again, and the job is read as them.
const (
	// ActionRefresh re-reads the job and updates the message in place.
	ActionRefresh = "kueuebot_refresh"
	// ActionDetails answers again with the quota and evidence
	// (AnswerOptions.Detailed).
	ActionDetails = "kueuebot_details"
	// ActionShare posts the (ephemeral) answer for everyone in the
	// conversation, as the person who pressed it chose to.
	ActionShare = "kueuebot_share"
	// ActionPick opens one job of a list: the static_select of JobList and
	// HomeView; the JobRef is the selected option's value.
	ActionPick = "kueuebot_pick"
)

// Block IDs of the actions blocks. A refresh pressed on a detailed answer
// keeps the details (AnswerDetailed).
const (
	BlockAnswer         = "kueuebot_answer"
	BlockAnswerDetailed = "kueuebot_answer_detailed"
	BlockPicker         = "kueuebot_picker"
)

// JobRef names one job: what buttons and pickers carry.
type JobRef struct {
	Namespace string
	// Kind is the Kubernetes kind as diagnose/fetch spells it ("Job",
	// "JobSet", "Workload", ...).
	Kind string
	Name string
	// Cluster is the configured cluster the job is in, when the bot reads
	// several (empty: the only one, or every one).
	Cluster string
}

// String renders the ref compactly as namespace/Kind/name, e.g.
// "team-a/Job/train-7", then "/cluster" when it names a cluster;
// ParseJobRef reads it back.
func (r JobRef) String() string {
	s := r.Namespace + "/" + r.Kind + "/" + r.Name
	if r.Cluster != "" {
		s += "/" + r.Cluster
	}
	return s
}

// Target is the diagnose.Target the ref names.
func (r JobRef) Target() diagnose.Target {
	return diagnose.Target{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// ErrBadRef is wrapped by every error of ParseJobRef and Validate.
var ErrBadRef = errors.New("bad job reference")

// Validate checks that the namespace is a DNS-1123 label, the name a
// DNS-1123 subdomain and the kind one of the kind registry (package kinds).
func (r JobRef) Validate() error {
	if errs := validation.IsDNS1123Label(r.Namespace); len(errs) > 0 {
		return fmt.Errorf("%w: namespace %q: %s", ErrBadRef, r.Namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(r.Name); len(errs) > 0 {
		return fmt.Errorf("%w: name %q: %s", ErrBadRef, r.Name, strings.Join(errs, "; "))
	}
	if !knownKind(r.Kind) {
		return fmt.Errorf("%w: unknown kind %q", ErrBadRef, r.Kind)
	}
	if r.Cluster != "" {
		if errs := validation.IsDNS1123Label(r.Cluster); len(errs) > 0 {
			return fmt.Errorf("%w: cluster %q: %s", ErrBadRef, r.Cluster, strings.Join(errs, "; "))
		}
	}
	return nil
}

func knownKind(kind string) bool {
	_, ok := kinds.ByKind(kind)
	return ok
}

// ParseJobRef reads what String wrote. Anything else, a forged or damaged
// value included, is refused with an error wrapping ErrBadRef.
func ParseJobRef(s string) (JobRef, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 && len(parts) != 4 {
		return JobRef{}, fmt.Errorf("%w %.300q: want namespace/Kind/name[/cluster]", ErrBadRef, s)
	}
	r := JobRef{Namespace: parts[0], Kind: parts[1], Name: parts[2]}
	if len(parts) == 4 {
		if parts[3] == "" {
			return JobRef{}, fmt.Errorf("%w %.300q: empty cluster", ErrBadRef, s)
		}
		r.Cluster = parts[3]
	}
	if err := r.Validate(); err != nil {
		return JobRef{}, err
	}
	return r, nil
}

// ReportRef is the JobRef of a report's job, when the report names a job
// completely (a job found in a namespace, of a known kind).
func ReportRef(r diagnose.Report) (JobRef, bool) {
	ref := JobRef{Namespace: r.Target.Namespace, Kind: r.Target.Kind, Name: r.Target.Name, Cluster: r.Cluster}
	if ref.Validate() != nil {
		return JobRef{}, false
	}
	return ref, true
}

// AnswerDetailed reports whether the action was pressed on a detailed
// answer, so that Refresh keeps the details.
func AnswerDetailed(a *slack.BlockAction) bool {
	return a != nil && a.BlockID == BlockAnswerDetailed
}
