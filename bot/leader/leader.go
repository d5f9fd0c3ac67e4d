// Package leader elects the one active replica of the bot: the holder of
// the coordination.k8s.io Lease kueuebot-leader in the bot's namespace
// answers Slack and posts digests; the other replicas stand by and take
// over within seconds when it goes away. One elector serves every
// leader-only part of the bot.
package leader

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/kueuebot/kueuebot/rbac"
)

// Lease timing. A replica that dies without releasing the Lease (SIGKILL,
// a node lost) is replaced once the Lease expires: within LeaseDuration
// plus RetryPeriod of its last renewal, about 9 s. One that stops cleanly
// releases it, and a standby takes over within RetryPeriod.
const (
	// LeaseDuration is how long a standby waits after the last renewal.
	LeaseDuration = 8 * time.Second
	// RenewDeadline is how long the leader keeps trying to renew before
	// it gives up leading (it stops answering first).
	RenewDeadline = 6 * time.Second
	// RetryPeriod is how often every replica tries to take or renew it.
	RetryPeriod = 1 * time.Second
)

// Election configures leader election among the bot's replicas: the
// coordination.k8s.io Lease kueuebot-leader in the bot's namespace, held by
// one replica (named by its pod) at a time.
type Election struct {
	// Client is the bot's own (it needs get/update on the Lease, and
	// create: rbac.BotStateRole).
	Client kubernetes.Interface
	// Namespace is the bot's (POD_NAMESPACE).
	Namespace string
	// Identity names this replica (POD_NAME, else hostname and pid).
	Identity string
	// LeaseName is rbac.LeaseName when empty.
	LeaseName string
	// LeaseDuration, RenewDeadline and RetryPeriod default to the
	// constants of the same names.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	Log                                       *slog.Logger
}

// Run campaigns for the Lease until ctx ends and runs lead while this
// replica holds it; lead's context ends when the lease is lost. When lead
// returns (or ctx ends) the lease is released, so another replica takes
// over at once. After a lost lease it campaigns again.
func Run(ctx context.Context, e Election, lead func(ctx context.Context)) error {
	if e.Client == nil || e.Namespace == "" || e.Identity == "" {
		return errors.New("leader election needs a client, the bot's namespace (POD_NAMESPACE) and an identity (POD_NAME)")
	}
	name := e.LeaseName
	if name == "" {
		name = rbac.LeaseName
	}
	log := e.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: name, Namespace: e.Namespace},
		Client:     e.Client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: e.Identity},
	}
	cfg := leaderelection.LeaderElectionConfig{
		Lock:            lock,
		Name:            name,
		LeaseDuration:   orDefault(e.LeaseDuration, LeaseDuration),
		RenewDeadline:   orDefault(e.RenewDeadline, RenewDeadline),
		RetryPeriod:     orDefault(e.RetryPeriod, RetryPeriod),
		ReleaseOnCancel: true,
	}
	for ctx.Err() == nil {
		runCtx, stop := context.WithCancel(ctx)
		// le.Run returns when the lease is lost, without waiting for the
		// leader's work; wait for it before campaigning again.
		var leading sync.WaitGroup
		var started atomic.Bool
		leading.Add(1)
		cfg.Callbacks = leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leadCtx context.Context) {
				defer leading.Done()
				started.Store(true)
				log.Info("leading: this replica answers", slog.String("identity", e.Identity), slog.String("lease", name))
				lead(leadCtx)
				// Done leading (shutdown): give the lease up.
				stop()
			},
			OnStoppedLeading: func() {
				log.Info("not leading", slog.String("identity", e.Identity))
			},
			OnNewLeader: func(id string) {
				if id != e.Identity {
					log.Info("standing by: another replica leads", slog.String("leader", id), slog.String("identity", e.Identity))
				}
			},
		}
		le, err := leaderelection.NewLeaderElector(cfg)
		if err != nil {
			stop()
			return err
		}
		le.Run(runCtx)
		if started.Load() {
			leading.Wait()
		}
		stop()
		select {
		case <-ctx.Done():
		case <-time.After(cfg.RetryPeriod):
		}
	}
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
