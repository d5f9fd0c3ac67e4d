package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/cache"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/bot/metrics"
	"github.com/kueuebot/kueuebot/i18n"
)

// Reply is what a Handler answers with. The Dispatcher hands it back to
// Deliver and reads only its Outcome, to label the metrics.
type Reply interface {
	// Outcome is the verdict code, or what happened instead (help,
	// refused, busy, timeout, panic, ...).
	Outcome() string
}

// Handler answers and delivers. Answer may be slow (it reads the cluster)
// and must honour ctx; Deliver writes to Slack under its own context, so
// an answer is delivered even when the question's context has ended.
// Notice is the reply that tells the user m instead of an answer (busy,
// too busy, timeout, an apology after a panic, restarting), with outcome
// as its Outcome; Deliver takes it where ev's answer goes by default.
type Handler[R Reply] interface {
	Answer(ctx context.Context, ev *event.Event) R
	Deliver(ctx context.Context, ev *event.Event, r R) error
	Notice(outcome string, m blocks.Message) R
}

// Dispatcher defaults.
const (
	DefaultWorkers   = 8
	DefaultQueueSize = 256
	// DefaultTimeout bounds one question when Options.Timeout is zero.
	DefaultTimeout = 30 * time.Second
	// DefaultPerUser bounds the questions of one Slack user in flight or
	// queued: beyond it, that user (and only they) is asked to wait for
	// their answers before asking more.
	DefaultPerUser = 16
	// DefaultBusyAfter is how long a question waits for a worker before
	// the user is told "busy, I will answer in a moment".
	DefaultBusyAfter = 2 * time.Second
	// DefaultReplyTimeout bounds one delivery, 429 retries included.
	DefaultReplyTimeout = 20 * time.Second
	// DefaultFinalGrace is how long, once the shutdown grace is over, the
	// interrupted questions have to deliver their "I am restarting" answer.
	DefaultFinalGrace = 3 * time.Second
	// answerGrace is how long past its deadline a question may take to
	// return its own timeout answer before the dispatcher answers for it.
	answerGrace = 2 * time.Second
	dedupeSize  = 4096
	dedupeTTL   = 30 * time.Minute
	// noticeQueue bounds the busy/refusal notices waiting to be sent.
	noticeQueue   = 512
	noticeWorkers = 2
)

// Admission says what Submit did with an event.
type Admission int

// Admissions.
const (
	// Accepted: a worker will answer it (at once or after the queue).
	Accepted Admission = iota
	// Refused: every worker and queue slot was taken; the user is told to
	// ask again in a minute.
	Refused
	// Duplicate: the event was seen before (a Slack retry); dropped.
	Duplicate
	// Closed: the dispatcher is shutting down; the transport should not
	// have accepted the event.
	Closed
)

func (a Admission) String() string {
	switch a {
	case Accepted:
		return "accepted"
	case Refused:
		return "refused"
	case Duplicate:
		return "duplicate"
	case Closed:
		return "closed"
	}
	return fmt.Sprintf("Admission(%d)", int(a))
}

// Options configures New. Zero values take the defaults.
type Options struct {
	// Workers answer questions concurrently.
	Workers int
	// QueueSize bounds the questions waiting for a worker; beyond it, a
	// question is refused with "too busy, ask again in a minute".
	QueueSize int
	// PerUser bounds one user's questions in flight or queued (see
	// DefaultPerUser). Workers take the users' questions in turn, so one
	// user's backlog never delays another's question by more than a
	// question per user ahead of it.
	PerUser int
	// Timeout bounds each question (identity, cluster reads).
	Timeout time.Duration
	// BusyAfter: a question still waiting after this long gets "busy, I
	// will answer in a moment".
	BusyAfter time.Duration
	// ReplyTimeout bounds one delivery.
	ReplyTimeout time.Duration
	// FinalGrace: see DefaultFinalGrace.
	FinalGrace time.Duration
	// Metrics records questions, latency and busy answers; nil: none.
	Metrics *metrics.Metrics
	// Log receives panics and delivery failures; nil discards.
	Log *slog.Logger
	// Lang tells the language of the dispatcher's own notices (busy,
	// restarting, an apology) for an event; it must be cheap (no request:
	// the notices come when the bot is busiest), e.g. the language the
	// question is written in, else language.default. nil: English.
	Lang func(ev *event.Event) i18n.Lang
}

// Dispatcher is the one place every question goes through, whatever the
// transport: it drops duplicates (Slack retries carry the same event_id),
// bounds the work (a pool of workers behind a queue, and a bound per user),
// serves the users in turn (one user's flood never locks the others out),
// times each question out, recovers panics, and always tells the user
// something: the answer, "busy, I will answer in a moment" while queued
// (never after the answer), "too busy, ask again in a minute" when the
// queue is full, "wait for your answers" past the per-user bound, an
// apology after a panic, or "I am restarting" when the shutdown grace ends
// first.
type Dispatcher[R Reply] struct {
	h    Handler[R]
	o    Options
	log  *slog.Logger
	seen *dedupe
	// overrun is answerGrace (tests shorten it).
	overrun time.Duration

	mu       sync.Mutex
	closed   bool
	inflight int
	// perUser counts each user's questions in flight or queued.
	perUser map[string]int
	// waiting holds the queued questions, served user by user in turn.
	waiting fairQueue[R]
	// wake carries one token per queued question to the workers.
	wake    chan struct{}
	notices chan *task[R]
	// noticesClosed: no more notices (after the shutdown drained).
	noticesClosed bool

	workers  sync.WaitGroup
	noticers sync.WaitGroup
	timers   sync.WaitGroup
	stopOnce sync.Once
	finished chan struct{}

	// work is the parent of every question's context; it ends (with
	// event.ErrShuttingDown) when the shutdown grace is over.
	work       context.Context
	cancelWork context.CancelCauseFunc
	// hard is the parent of every delivery's context; it ends FinalGrace
	// after work.
	hard       context.Context
	cancelHard context.CancelFunc
}

type task[R Reply] struct {
	ev      event.Event
	started atomic.Bool
	timer   *time.Timer
	// notice is the reply of a notice task (busy, refused).
	notice R
	// of is the question a busy notice announces an answer to.
	of *task[R]
	// noticeMu orders a busy notice before the answer: the notice is sent
	// holding it, and skipped once answering is set.
	noticeMu  sync.Mutex
	answering bool
}

// userKey identifies a Slack user across workspaces.
func userKey(ev *event.Event) string { return ev.User.TeamID + "/" + ev.User.ID }

// New starts the workers. Call Shutdown to stop them.
func New[R Reply](h Handler[R], o Options) *Dispatcher[R] {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.QueueSize < 0 {
		o.QueueSize = 0
	} else if o.QueueSize == 0 {
		o.QueueSize = DefaultQueueSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.BusyAfter <= 0 {
		o.BusyAfter = DefaultBusyAfter
	}
	if o.ReplyTimeout <= 0 {
		o.ReplyTimeout = DefaultReplyTimeout
	}
	if o.FinalGrace <= 0 {
		o.FinalGrace = DefaultFinalGrace
	}
	if o.PerUser <= 0 {
		o.PerUser = DefaultPerUser
	}
	d := &Dispatcher[R]{
		h: h, o: o, log: o.Log, seen: newDedupe(dedupeSize), overrun: answerGrace,
		perUser: map[string]int{},
		wake:    make(chan struct{}, o.Workers+o.QueueSize),
		notices: make(chan *task[R], noticeQueue),
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	d.work, d.cancelWork = context.WithCancelCause(context.Background())
	d.hard, d.cancelHard = context.WithCancel(context.Background())
	for range o.Workers {
		d.workers.Go(d.worker)
	}
	notices := d.notices
	for range noticeWorkers {
		d.noticers.Go(func() {
			for t := range notices {
				d.sendNotice(t)
			}
		})
	}
	return d
}

// Submit hands an event to the workers without blocking: the transports
// call it right after acking. The event's Key deduplicates it.
func (d *Dispatcher[R]) Submit(ev event.Event) Admission {
	if ev.Received.IsZero() {
		ev.Received = time.Now()
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return Closed
	}
	if ev.Key != "" && !d.seen.add(ev.Key) {
		d.mu.Unlock()
		return Duplicate
	}
	user := userKey(&ev)
	if d.perUser[user] >= d.o.PerUser {
		d.mu.Unlock()
		d.o.Metrics.Busy(metrics.BusyRefused)
		d.o.Metrics.Question(ev.Entry, "busy", time.Since(ev.Received))
		d.log.Warn("question refused: the user has too many questions waiting", slog.String("entry", string(ev.Entry)), slog.String("slack_user", ev.User.ID), slog.Int("per_user", d.o.PerUser))
		d.notify(&task[R]{ev: ev, notice: d.h.Notice("busy", d.notice(&ev, "dispatch.perUser", i18n.Num(d.o.PerUser)))})
		return Refused
	}
	if d.inflight >= d.o.Workers+d.o.QueueSize {
		d.mu.Unlock()
		d.o.Metrics.Busy(metrics.BusyRefused)
		d.o.Metrics.Question(ev.Entry, "busy", time.Since(ev.Received))
		d.log.Warn("question refused: every worker busy and the queue full", slog.String("entry", string(ev.Entry)), slog.String("slack_user", ev.User.ID))
		d.notify(&task[R]{ev: ev, notice: d.h.Notice("busy", d.notice(&ev, "dispatch.full"))})
		return Refused
	}
	t := &task[R]{ev: ev}
	d.inflight++
	d.perUser[user]++
	queued := d.inflight > d.o.Workers
	if queued {
		d.timers.Add(1)
		t.timer = time.AfterFunc(d.o.BusyAfter, func() {
			defer d.timers.Done()
			if !t.started.Load() {
				d.o.Metrics.Busy(metrics.BusyQueued)
				d.notify(&task[R]{ev: ev, of: t, notice: d.h.Notice("busy", d.notice(&ev, "dispatch.queued"))})
			}
		})
	}
	d.waiting.push(user, t)
	d.wake <- struct{}{} // never blocks: inflight bounds the queued tasks
	d.mu.Unlock()
	d.o.Metrics.InFlight(1)
	return Accepted
}

// notify queues a notice without blocking; a notice that does not fit is
// logged and counted (the user's question was not acked in vain: it is
// still answered or already refused).
func (d *Dispatcher[R]) notify(t *task[R]) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.noticesClosed {
		return
	}
	select {
	case d.notices <- t:
	default:
		d.o.Metrics.Undelivered(t.ev.Entry)
		d.log.Warn("notice dropped: too many notices waiting", slog.String("entry", string(t.ev.Entry)), slog.String("slack_user", t.ev.User.ID))
	}
}

// sendNotice delivers a notice. A busy notice is sent only while its
// question's answer is not being delivered, and the answer waits for it:
// "I will answer in a moment" never arrives after the answer.
func (d *Dispatcher[R]) sendNotice(t *task[R]) {
	if q := t.of; q != nil {
		q.noticeMu.Lock()
		defer q.noticeMu.Unlock()
		if q.answering {
			return
		}
	}
	ctx, cancel := context.WithTimeout(d.hard, d.o.ReplyTimeout)
	defer cancel()
	d.deliver(ctx, t, t.notice)
}

func (d *Dispatcher[R]) worker() {
	for range d.wake {
		d.mu.Lock()
		t := d.waiting.pop()
		d.mu.Unlock()
		t.started.Store(true)
		if t.timer != nil && t.timer.Stop() {
			d.timers.Done()
		}
		d.run(t)
		d.mu.Lock()
		d.inflight--
		user := userKey(&t.ev)
		if d.perUser[user]--; d.perUser[user] <= 0 {
			delete(d.perUser, user)
		}
		d.mu.Unlock()
		d.o.Metrics.InFlight(-1)
	}
}

// run answers one question and delivers the answer.
func (d *Dispatcher[R]) run(t *task[R]) {
	var r R
	if d.work.Err() != nil {
		r = d.h.Notice("shutdown", d.notice(&t.ev, "dispatch.shutdown"))
	} else {
		ctx, cancel := context.WithTimeout(d.work, d.o.Timeout)
		r = d.answer(ctx, t)
		cancel()
	}
	// A busy notice being sent goes first; one not sent yet is dropped.
	t.noticeMu.Lock()
	t.answering = true
	t.noticeMu.Unlock()
	ctx, cancel := context.WithTimeout(d.hard, d.o.ReplyTimeout)
	defer cancel()
	d.deliver(ctx, t, r)
	d.o.Metrics.Question(t.ev.Entry, r.Outcome(), time.Since(t.ev.Received))
}

// answer runs the handler, recovering a panic, and answers for it when it
// overruns its deadline.
func (d *Dispatcher[R]) answer(ctx context.Context, t *task[R]) R {
	done := make(chan R, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				d.o.Metrics.Panicked()
				d.log.Error("panic while answering a question", slog.String("entry", string(t.ev.Entry)), slog.String("slack_user", t.ev.User.ID),
					slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				done <- d.h.Notice("panic", d.notice(&t.ev, "dispatch.panic"))
			}
		}()
		done <- d.h.Answer(ctx, &t.ev)
	}()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
	}
	grace := time.NewTimer(d.overrun)
	defer grace.Stop()
	select {
	case r := <-done:
		return r
	case <-grace.C:
	case <-d.hard.Done():
	}
	d.log.Error("question overran its deadline; answering for it", slog.String("entry", string(t.ev.Entry)), slog.String("slack_user", t.ev.User.ID), slog.Duration("timeout", d.o.Timeout))
	took := d.o.Timeout.String() // English: "30s", as before
	if l := d.lang(&t.ev); l != i18n.English {
		took = i18n.FormatDuration(l, i18n.Dur(d.o.Timeout))
	}
	return d.h.Notice("timeout", d.notice(&t.ev, "dispatch.timeout", i18n.Verbatim(took)))
}

// deliver delivers r, recovering a panic; failures are logged and counted.
func (d *Dispatcher[R]) deliver(ctx context.Context, t *task[R], r R) {
	defer func() {
		if p := recover(); p != nil {
			d.o.Metrics.Panicked()
			d.o.Metrics.Undelivered(t.ev.Entry)
			d.log.Error("panic while delivering an answer", slog.String("entry", string(t.ev.Entry)), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
		}
	}()
	if err := d.h.Deliver(ctx, &t.ev, r); err != nil {
		d.o.Metrics.Undelivered(t.ev.Entry)
		d.log.Error("could not deliver the answer", slog.String("entry", string(t.ev.Entry)), slog.String("slack_user", t.ev.User.ID),
			slog.String("channel", t.ev.Channel), slog.Any("error", err))
	}
}

// Shutdown stops taking events and waits for the accepted ones: every
// question in flight or queued is answered and delivered until ctx ends
// (the shutdown grace). Then the questions still running are interrupted
// (their context ends with event.ErrShuttingDown) and get FinalGrace to
// deliver "I am restarting, ask again in a minute". It returns when every
// worker has finished, and ctx.Err() if the grace ended first.
func (d *Dispatcher[R]) Shutdown(ctx context.Context) error {
	d.stopOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		close(d.wake)
		d.mu.Unlock()
		d.finished = make(chan struct{})
		go func() {
			d.workers.Wait()
			// Busy timers of tasks that were answered are stopped; the
			// others fired and queued their notice.
			d.timers.Wait()
			d.mu.Lock()
			close(d.notices)
			d.noticesClosed = true
			d.mu.Unlock()
			d.noticers.Wait()
			close(d.finished)
		}()
	})
	var err error
	select {
	case <-d.finished:
	case <-ctx.Done():
		err = ctx.Err()
		d.log.Warn("shutdown grace over: interrupting the questions still running")
		d.cancelWork(event.ErrShuttingDown)
		final := time.NewTimer(d.o.FinalGrace)
		defer final.Stop()
		select {
		case <-d.finished:
		case <-final.C:
			d.cancelHard()
			<-d.finished
		}
	}
	d.cancelWork(event.ErrShuttingDown)
	d.cancelHard()
	return err
}

// dedupe remembers up to n recent keys, each for dedupeTTL (Slack retries
// an event for minutes), in an LRU cache. One replica answers at a time
// (the Lease holder), so it is exact while that replica leads.
type dedupe struct{ seen *cache.LRUExpireCache }

func newDedupe(n int) *dedupe { return &dedupe{seen: cache.NewLRUExpireCache(n)} }

// add records key and reports whether it is new. The Dispatcher holds its
// lock, so that a check and its record are one step.
func (d *dedupe) add(key string) bool {
	if _, ok := d.seen.Get(key); ok {
		return false
	}
	d.seen.Add(key, struct{}{}, dedupeTTL)
	return true
}

// fairQueue holds the queued questions per user and hands them out one
// user at a time, in turn (round robin), each user's in the order asked.
// Not safe for concurrent use: the Dispatcher holds its lock.
type fairQueue[R Reply] struct {
	byUser map[string][]*task[R]
	// turn lists the users with questions queued; next is whose turn it is.
	turn []string
	next int
}

func (q *fairQueue[R]) push(user string, t *task[R]) {
	if q.byUser == nil {
		q.byUser = map[string][]*task[R]{}
	}
	if len(q.byUser[user]) == 0 {
		q.turn = append(q.turn, user)
	}
	q.byUser[user] = append(q.byUser[user], t)
}

// pop returns the next question, or nil when none is queued.
func (q *fairQueue[R]) pop() *task[R] {
	if len(q.turn) == 0 {
		return nil
	}
	if q.next >= len(q.turn) {
		q.next = 0
	}
	user := q.turn[q.next]
	tasks := q.byUser[user]
	t := tasks[0]
	tasks[0] = nil
	if tasks = tasks[1:]; len(tasks) == 0 {
		delete(q.byUser, user)
		q.turn = append(q.turn[:q.next], q.turn[q.next+1:]...)
	} else {
		q.byUser[user] = tasks
		q.next++
	}
	return t
}

// notice is one of the dispatcher's own notices, in the event's language.
func (d *Dispatcher[R]) notice(ev *event.Event, id i18n.ID, args ...i18n.Arg) blocks.Message {
	return blocks.Notice("", i18n.Render(d.lang(ev), i18n.M(id, args...)))
}

func (d *Dispatcher[R]) lang(ev *event.Event) i18n.Lang {
	if d.o.Lang == nil {
		return i18n.English
	}
	return d.o.Lang(ev)
}

// The catalog entries of the dispatcher's notices.
var _ = i18n.Register(
	i18n.Entry{ID: "dispatch.perUser", Args: []i18n.Kind{i18n.KindNum},
		En: "You already have %[1]d questions waiting for me. I will answer those first; ask again once they are answered.",
		Fr: "Vous avez déjà %[1]d questions en attente. J’y réponds d’abord ; reposez la question une fois qu’elles auront une réponse.",
		Ja: "すでに %[1]d 件の質問が回答待ちです。先にそれらに回答しますので、回答後にもう一度質問してください。",
		Zh: "你已有 %[1]d 个问题在等我回答。我会先回答它们；回答完后请再问。"},
	i18n.Entry{ID: "dispatch.full",
		En: "I am too busy to look at that right now. Please ask again in a minute.",
		Fr: "Je suis trop occupé pour examiner cela maintenant. Reposez la question dans une minute.",
		Ja: "現在混み合っていて確認できません。1分後にもう一度質問してください。",
		Zh: "我现在太忙，无法查看。请一分钟后再问。"},
	i18n.Entry{ID: "dispatch.queued",
		En: "I am busy with other questions; I will answer in a moment.",
		Fr: "Je suis occupé par d’autres questions ; je réponds dans un instant.",
		Ja: "ほかの質問に対応中です。まもなく回答します。",
		Zh: "我正在处理其他问题，稍后就回答你。"},
	i18n.Entry{ID: "dispatch.shutdown",
		En: "I am restarting and could not look at that. Please ask again in a minute.",
		Fr: "Je redémarre et n’ai pas pu examiner cela. Reposez la question dans une minute.",
		Ja: "再起動中のため確認できませんでした。1分後にもう一度質問してください。",
		Zh: "我正在重启，未能查看。请一分钟后再问。"},
	i18n.Entry{ID: "dispatch.panic",
		En: "Sorry, something broke while I looked at that. It has been logged for the platform team; please try again in a minute.",
		Fr: "Désolé, quelque chose a cassé pendant que j’examinais cela. L’incident est consigné pour l’équipe plateforme ; réessayez dans une minute.",
		Ja: "申し訳ありません。確認中に問題が発生しました。プラットフォームチーム向けに記録しました。1分後にもう一度お試しください。",
		Zh: "抱歉，查看时出了问题。已为平台团队记录日志；请一分钟后重试。"},
	i18n.Entry{ID: "dispatch.timeout", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I gave up on that question: it took longer than %[1]s. The cluster or Slack may be busy; please try again in a minute.",
		Fr: "J’ai abandonné cette question : elle a pris plus de %[1]s. Le cluster ou Slack est peut-être occupé ; réessayez dans une minute.",
		Ja: "%[1]sを超えたため、この質問への回答を中断しました。クラスターか Slack が混雑している可能性があります。1分後にもう一度お試しください。",
		Zh: "这个问题耗时超过 %[1]s，我已放弃。集群或 Slack 可能正忙；请一分钟后重试。"},
)
