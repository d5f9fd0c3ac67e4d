package digests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/rbac"
)

// Run statuses.
const (
	// StatusInitial marks the last run before the digest was first seen:
	// a baseline, nothing was posted.
	StatusInitial = "initial"
	// StatusClaimed: a replica recorded the run and is posting it. A run
	// stays claimed if that replica died while posting; it is never posted
	// again (a failover never posts twice).
	StatusClaimed = "claimed"
	// StatusPosted: the digest was posted (TS is its message).
	StatusPosted = "posted"
	// StatusSkipped: the run was missed by more than maxLateness.
	StatusSkipped = "skipped"
	// StatusFailed: posting failed (Error says why); nothing was posted.
	StatusFailed = "failed"
)

// Run is what the state records of a digest's last run.
type Run struct {
	// Key is the run key, "name@scheduled time".
	Key       string    `json:"key"`
	Scheduled time.Time `json:"scheduled"`
	Status    string    `json:"status"`
	// Holder is the replica (pod name) that recorded it.
	Holder string `json:"holder,omitempty"`
	// At is when the status was recorded.
	At time.Time `json:"at"`
	// Late is true when it was posted after its time, with a note.
	Late bool `json:"late,omitempty"`
	// TS is the posted message's Slack timestamp.
	TS    string `json:"ts,omitempty"`
	Error string `json:"error,omitempty"`
	// Figures are the last posted digest's, which the next trend compares
	// against; kept across runs that post nothing.
	Figures *digest.Figures `json:"figures,omitempty"`
}

// RunKey names one scheduled run of a digest.
func RunKey(name string, scheduled time.Time) string {
	return name + "@" + scheduled.UTC().Format(time.RFC3339)
}

// State keeps each digest's last run in the ConfigMap kueuebot-state of
// the bot's namespace (one data key per digest, "digest.NAME", holding a
// Run as JSON), read and written as the bot. Writes use the ConfigMap's
// resourceVersion: of two replicas recording the same run, one wins.
type State struct {
	Client    kubernetes.Interface
	Namespace string
	// Name is the ConfigMap's; rbac.StateConfigMapName when empty.
	Name string
}

func (s *State) name() string {
	if s.Name == "" {
		return rbac.StateConfigMapName
	}
	return s.Name
}

func dataKey(digestName string) string { return "digest." + digestName }

// get reads the ConfigMap, creating it when it does not exist.
func (s *State) get(ctx context.Context) (*corev1.ConfigMap, error) {
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	cm, err := cms.Get(ctx, s.name(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm, err = cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: s.name(), Namespace: s.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "kueuebot"}},
		}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			cm, err = cms.Get(ctx, s.name(), metav1.GetOptions{})
		}
	}
	if err != nil {
		return nil, fmt.Errorf("digest state: ConfigMap %s/%s: %w", s.Namespace, s.name(), err)
	}
	return cm, nil
}

func runOf(cm *corev1.ConfigMap, name string) (*Run, error) {
	raw, ok := cm.Data[dataKey(name)]
	if !ok {
		return nil, nil
	}
	var r Run
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return nil, fmt.Errorf("digest state: %s: %w", dataKey(name), err)
	}
	return &r, nil
}

// Get returns the digest's last run, nil when none was recorded.
func (s *State) Get(ctx context.Context, name string) (*Run, error) {
	cm, err := s.get(ctx)
	if err != nil {
		return nil, err
	}
	return runOf(cm, name)
}

// errStale is returned by an update function that found the state has
// moved on: nothing is written.
var errStale = errors.New("digest state: the run was recorded by another replica")

// update applies fn to the digest's run and writes it, retrying on a
// conflict with another writer; fn may return errStale to write nothing.
func (s *State) update(ctx context.Context, name string, fn func(cur *Run) (*Run, error)) (*Run, error) {
	for attempt := 0; ; attempt++ {
		cm, err := s.get(ctx)
		if err != nil {
			return nil, err
		}
		cur, err := runOf(cm, name)
		if err != nil {
			return nil, err
		}
		next, err := fn(cur)
		if err != nil {
			return cur, err
		}
		raw, err := json.Marshal(next)
		if err != nil {
			return nil, err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[dataKey(name)] = string(raw)
		_, err = s.Client.CoreV1().ConfigMaps(s.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) && attempt < 10 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("digest state: ConfigMap %s/%s: %w", s.Namespace, s.name(), err)
		}
		return next, nil
	}
}

// Init records a baseline for a digest seen for the first time: its last
// scheduled time before now, as if handled, so that only later runs are
// posted (and one missed later, while no replica was up, is posted late).
// It does nothing when the digest already has a run.
func (s *State) Init(ctx context.Context, name string, scheduled time.Time, holder string, now time.Time) (*Run, error) {
	r, err := s.update(ctx, name, func(cur *Run) (*Run, error) {
		if cur != nil {
			return nil, errStale
		}
		return &Run{Key: RunKey(name, scheduled), Scheduled: scheduled, Status: StatusInitial, Holder: holder, At: now}, nil
	})
	if errors.Is(err, errStale) {
		return r, nil
	}
	return r, err
}

// Claim records the run at scheduled as the holder's, before it posts,
// unless a run at or after that time is recorded already. claimed is false
// when another replica recorded it first. prev is the run recorded before.
func (s *State) Claim(ctx context.Context, name string, scheduled time.Time, status, holder string, now time.Time) (claimed bool, prev *Run, err error) {
	_, err = s.update(ctx, name, func(cur *Run) (*Run, error) {
		prev = cur
		if cur != nil && !cur.Scheduled.Before(scheduled) {
			return nil, errStale
		}
		next := &Run{Key: RunKey(name, scheduled), Scheduled: scheduled, Status: status, Holder: holder, At: now}
		if cur != nil {
			next.Figures = cur.Figures
		}
		return next, nil
	})
	if errors.Is(err, errStale) {
		return false, prev, nil
	}
	return err == nil, prev, err
}

// Finish records how a claimed run ended. It does nothing when the state
// has moved to another run.
func (s *State) Finish(ctx context.Context, name string, scheduled time.Time, change func(r *Run)) error {
	_, err := s.update(ctx, name, func(cur *Run) (*Run, error) {
		if cur == nil || !cur.Scheduled.Equal(scheduled) {
			return nil, errStale
		}
		next := *cur
		change(&next)
		return &next, nil
	})
	if errors.Is(err, errStale) {
		return nil
	}
	return err
}
