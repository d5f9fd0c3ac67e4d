package explain

import (
	"context"
	"errors"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// WorkerReader finds the Reader of a MultiKueue worker cluster by the name
// of its MultiKueueCluster on the manager. A nil Reader means the bot is
// not configured to read that cluster.
type WorkerReader interface {
	Worker(name string) Reader
}

// WorkerReaders is a WorkerReader from a map of MultiKueueCluster names to
// Readers (the CLI's --worker flags, tests).
type WorkerReaders map[string]Reader

// Worker implements WorkerReader.
func (w WorkerReaders) Worker(name string) Reader { return w[name] }

// maxFollowedWorkers bounds how many worker clusters one answer reads (a
// Workload waiting on many workers): one Snapshot each.
const maxFollowedWorkers = 5

// followWorkers adds the job's own diagnosis on each worker cluster the
// manager's report names (the worker that runs it, else those that hold a
// copy), read there as the same identity. A worker the bot cannot read is
// said so; a read that fails is named, never dropped.
func (e *Explainer) followWorkers(ctx context.Context, id rbac.Identity, t diagnose.Target, r *diagnose.Report) {
	if e.Workers == nil {
		return
	}
	names := r.MultiKueue.FollowClusters()
	if len(names) > maxFollowedWorkers {
		names = names[:maxFollowedWorkers]
	}
	for _, name := range names {
		reader := e.Workers.Worker(name)
		if reader == nil {
			r.Workers = append(r.Workers, workerFailed(name, i18n.M("explain.worker.notConfigured", i18n.Name(name))))
			continue
		}
		s, err := reader.Snapshot(ctx, id, t)
		if err != nil {
			r.Workers = append(r.Workers, workerFailed(name, workerNoAnswer(name, err)))
			continue
		}
		if s.Job == nil && s.Workload == nil && r.Target.Workload != "" {
			// MultiKueue creates the job on a worker only once the worker admits
			// the copy of its Workload: until then the worker holds the Workload
			// alone, under the manager's Workload name.
			wt := diagnose.Target{Kind: "Workload", Namespace: t.Namespace, Name: r.Target.Workload}
			if s, err = reader.Snapshot(ctx, id, wt); err != nil {
				r.Workers = append(r.Workers, workerFailed(name, workerNoAnswer(name, err)))
				continue
			}
		}
		rep := diagnose.Analyze(s)
		r.Workers = append(r.Workers, diagnose.WorkerReport{Cluster: name, Report: &rep})
	}
}

// workerFailed is the report of a worker cluster whose diagnosis is
// missing, and why (m; Error is its English).
func workerFailed(name string, m i18n.Message) diagnose.WorkerReport {
	return diagnose.WorkerReport{Cluster: name, Error: m.String(), ErrorMsg: m}
}

// workerNoAnswer says that worker cluster name did not answer, and what
// the read's error says to the user.
func workerNoAnswer(name string, err error) i18n.Message {
	return i18n.M("explain.worker.noAnswer", i18n.Name(name), errMsg(err))
}

// userText is an error's user-facing text when it has one.
func userText(err error) string {
	var u interface{ UserMessage() string }
	if errors.As(err, &u) {
		return u.UserMessage()
	}
	return err.Error()
}
