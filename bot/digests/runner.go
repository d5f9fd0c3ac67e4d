package digests

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/utils/clock"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/diagnose/digest"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// Digester computes one digest, reading as the digest's identity
// (*explain.Explainer: the one join of identity, reads and the pure core).
type Digester interface {
	Digest(ctx context.Context, id rbac.Identity, q explain.DigestQuery) (explain.DigestResult, error)
}

// Runner posts the configured digests on their schedules while its replica
// leads (Lead runs under leader election, leader.Run). For each scheduled
// time it asks the Digester for the digest (a few LISTs as the digest's
// identity, then the pure core), records the run key in the State before posting, and posts
// through Poster; a run another replica recorded is left alone, so a
// failover never posts twice. A run missed while no replica was up is
// posted once, late, with a note, within the digest's maxLateness, and
// skipped after.
type Runner struct {
	// Digester reads the home cluster (a digest without cluster).
	Digester Digester
	// Clusters read the configured clusters, by name (a digest's
	// cluster); NewRunner refuses a digest whose cluster has none.
	Clusters map[string]Digester
	Poster   Poster
	State    *State
	// Holder names this replica in the state (its pod name).
	Holder string
	// Clock is the clock schedules run on; the real one when nil.
	Clock clock.Clock
	Log   *slog.Logger
	// Retry is how long to wait before trying a run again whose reads
	// failed; a minute when zero.
	Retry time.Duration
	// PostTimeout bounds posting a claimed run (which goes on even if
	// leadership is lost meanwhile); two minutes when zero.
	PostTimeout time.Duration
	// DefaultLang is the language of a digest without its own language
	// (config language.default); English when zero.
	DefaultLang i18n.Lang

	digests []scheduled
	// unfinished holds the run keys already reported as claimed by another
	// replica and not recorded as posted (Lead's goroutine only).
	unfinished map[string]bool
}

// scheduled is one digest with its parsed schedule.
type scheduled struct {
	cfg      config.Digest
	schedule cron.Schedule
	loc      *time.Location
}

// lateAfter is how far past its time a run still counts as on time.
const lateAfter = time.Minute

// NewRunner checks and keeps the digests (their schedules and time zones).
func NewRunner(ds []config.Digest, r Runner) (*Runner, error) {
	r.digests = nil
	for _, d := range ds {
		if d.Cluster != "" && r.Clusters[d.Cluster] == nil {
			return nil, fmt.Errorf("digest %s: cluster %q is not one the bot reads", d.Name, d.Cluster)
		}
		s, err := d.ParseSchedule()
		if err != nil {
			return nil, fmt.Errorf("digest %s: schedule %q: %w", d.Name, d.Schedule, err)
		}
		loc, err := d.Location()
		if err != nil {
			return nil, fmt.Errorf("digest %s: time zone %q: %w", d.Name, d.TimeZone, err)
		}
		r.digests = append(r.digests, scheduled{cfg: d, schedule: s, loc: loc})
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Log == nil {
		r.Log = slog.New(slog.DiscardHandler)
	}
	if r.Retry <= 0 {
		r.Retry = time.Minute
	}
	if r.PostTimeout <= 0 {
		r.PostTimeout = 2 * time.Minute
	}
	return &r, nil
}

// latest returns the last scheduled time in (after, now], or zero.
func latest(s cron.Schedule, after, now time.Time) time.Time {
	// Bound the walk: nothing older than a week past the latest lateness
	// allowed is ever posted.
	if floor := now.Add(-8 * 24 * time.Hour); after.Before(floor) {
		after = floor
	}
	var last time.Time
	for t := s.Next(after); !t.IsZero() && !t.After(now); t = s.Next(t) {
		last = t
	}
	return last
}

// previous returns the last scheduled time at or before now (within a
// week), or now when there is none.
func previous(s cron.Schedule, now time.Time) time.Time {
	if t := latest(s, now.Add(-7*24*time.Hour), now); !t.IsZero() {
		return t
	}
	return now
}

// Lead runs the schedules until ctx ends (leadership lost or shutdown).
func (r *Runner) Lead(ctx context.Context) {
	r.Log.InfoContext(ctx, "leading: posting digests", slog.String("holder", r.Holder), slog.Int("digests", len(r.digests)))
	retry := map[string]time.Time{}
	for ctx.Err() == nil {
		now := r.Clock.Now()
		wake := time.Time{}
		for i := range r.digests {
			d := &r.digests[i]
			if at, ok := retry[d.cfg.Name]; ok && now.Before(at) {
				wake = earliest(wake, at)
				continue
			}
			delete(retry, d.cfg.Name)
			if again := r.handle(ctx, d, now); !again.IsZero() {
				retry[d.cfg.Name] = again
				wake = earliest(wake, again)
			}
			if ctx.Err() != nil {
				return
			}
			if next := d.schedule.Next(now); !next.IsZero() {
				wake = earliest(wake, next)
			}
		}
		if wake.IsZero() {
			<-ctx.Done()
			return
		}
		wait := wake.Sub(r.Clock.Now())
		if wait <= 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-r.Clock.After(wait):
		}
	}
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// handle posts d's latest due run, if any. It returns when to try again
// after a failed read (zero: no retry).
func (r *Runner) handle(ctx context.Context, d *scheduled, now time.Time) time.Time {
	name := d.cfg.Name
	log := r.Log.With(slog.String("digest", name))
	last, err := r.State.Get(ctx, name)
	if err != nil {
		log.ErrorContext(ctx, "digest state unreadable", slog.Any("error", err))
		return now.Add(r.Retry)
	}
	if last == nil {
		base := previous(d.schedule, now)
		if last, err = r.State.Init(ctx, name, base, r.Holder, now); err != nil {
			log.ErrorContext(ctx, "digest state unwritable", slog.Any("error", err))
			return now.Add(r.Retry)
		}
		if last == nil {
			return time.Time{}
		}
	}
	if last.Status == StatusClaimed && last.Holder != r.Holder && !r.unfinished[last.Key] {
		// The replica that recorded the run stopped before recording its
		// post (or is still posting, having lost the lease): the run is
		// never posted again, so say that it may be missing.
		if r.unfinished == nil {
			r.unfinished = map[string]bool{}
		}
		r.unfinished[last.Key] = true
		log.WarnContext(ctx, "digest run recorded by another replica that never recorded posting it: if that replica died while posting, this run was not posted (a run is never posted twice)",
			slog.String("run", last.Key), slog.String("holder", last.Holder), slog.Time("recordedAt", last.At))
	}
	due := latest(d.schedule, last.Scheduled, now)
	if due.IsZero() {
		return time.Time{}
	}
	key := RunKey(name, due)
	log = log.With(slog.String("run", key))
	age := now.Sub(due)
	if age > d.cfg.MaxLatenessOrDefault() {
		if ok, _, err := r.State.Claim(ctx, name, due, StatusSkipped, r.Holder, now); err != nil {
			log.ErrorContext(ctx, "digest state unwritable", slog.Any("error", err))
		} else if ok {
			log.WarnContext(ctx, "digest run skipped: missed by more than maxLateness while no replica was up",
				slog.Duration("late", age), slog.Duration("maxLateness", d.cfg.MaxLatenessOrDefault()))
		}
		return time.Time{}
	}

	start := r.Clock.Now()
	dgr := r.Digester
	if d.cfg.Cluster != "" {
		dgr = r.Clusters[d.cfg.Cluster]
	}
	res, err := dgr.Digest(ctx, rbac.Identity{User: d.cfg.User, Groups: d.cfg.Groups}, explain.DigestQuery{
		Name:     name,
		Scope:    digest.Scope{Namespaces: d.cfg.Namespaces, LocalQueues: d.cfg.LocalQueues, ClusterQueues: d.cfg.ClusterQueues},
		Options:  digest.Options{LongWait: d.cfg.LongWaitOrDefault(), StuckAfter: d.cfg.StuckAfterOrDefault(), TopN: d.cfg.TopNOrDefault()},
		Previous: last.Figures,
	})
	if err != nil {
		if ctx.Err() == nil {
			log.ErrorContext(ctx, "digest failed; will retry", slog.Any("error", err), slog.Duration("retryIn", r.Retry))
		}
		return now.Add(r.Retry)
	}
	logRead(ctx, log, d.cfg.User, res.Stats)
	built := r.Clock.Now()
	dg := res.Digest
	dg.Cluster = d.cfg.Cluster

	// Record the run before posting: a replica that finds it recorded
	// leaves it alone, so a failover never posts twice.
	claimed, _, err := r.State.Claim(ctx, name, due, StatusClaimed, r.Holder, r.Clock.Now())
	if err != nil {
		log.ErrorContext(ctx, "digest state unwritable; not posting", slog.Any("error", err))
		return now.Add(r.Retry)
	}
	if !claimed {
		log.InfoContext(ctx, "digest run recorded by another replica")
		return time.Time{}
	}
	late := r.Clock.Now().Sub(due) > lateAfter
	lang := i18n.ParseOr(d.cfg.Language, r.DefaultLang)
	note := ""
	if late {
		note = LateNote(lang, due, d.loc)
	}
	// A claimed run is posted to the end, even if leadership is lost
	// meanwhile: nobody else will post it.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.PostTimeout)
	defer cancel()
	ts, postErr := Post(pctx, r.Poster, d.cfg.Channel, dg, lang, note, "kueuebot digest --name "+name+" -o json")
	finished := r.Clock.Now()
	err = r.State.Finish(pctx, name, due, func(run *Run) {
		run.At, run.Late, run.TS = finished, late, ts
		switch {
		case postErr == nil:
			run.Status = StatusPosted
			f := dg.Figures()
			run.Figures = &f
		case ts != "":
			// The message is out; a thread reply failed.
			run.Status, run.Error = StatusPosted, postErr.Error()
			f := dg.Figures()
			run.Figures = &f
		default:
			run.Status, run.Error = StatusFailed, postErr.Error()
		}
	})
	attrs := []any{slog.Bool("late", late), slog.String("channel", d.cfg.Channel), slog.String("ts", ts),
		slog.Int("pending", dg.Totals.Pending), slog.Int("needsAction", dg.Totals.NeedsAction),
		slog.Duration("read", built.Sub(start)), slog.Duration("total", finished.Sub(start))}
	if err != nil {
		attrs = append(attrs, slog.Any("stateError", err))
	}
	if postErr != nil {
		log.ErrorContext(ctx, "digest post failed", append(attrs, slog.Any("error", postErr))...)
	} else {
		log.InfoContext(ctx, "digest posted", attrs...)
	}
	return time.Time{}
}

// logRead logs what a digest's reads did, and the LISTs that failed
// (other than Pods and Events, which only admitted jobs' verdicts read).
func logRead(ctx context.Context, log *slog.Logger, user string, stats *fetch.ListStats) {
	if stats == nil {
		return
	}
	var failed []string
	for _, f := range stats.Failed {
		if f.Resource != "pods" && f.Resource != "events" {
			failed = append(failed, f.String())
		}
	}
	log.InfoContext(ctx, "digest read", slog.String("user", user),
		slog.Int("requests", stats.Requests), slog.Int("objects", stats.Objects), slog.Any("failedLists", failed))
}

// Names lists the runner's digests.
func (r *Runner) Names() []string {
	var out []string
	for _, d := range r.digests {
		out = append(out, d.cfg.Name)
	}
	return slices.Clip(out)
}
