package metrics

import (
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kueuebot/kueuebot/bot/event"
)

// Metrics are the bot's Prometheus metrics, registered on a registry of the
// caller's (never the global one), so tests and several bots in a process
// do not collide. A nil *Metrics records nothing.
type Metrics struct {
	questions   *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	ack         *prometheus.HistogramVec
	busy        *prometheus.CounterVec
	panics      prometheus.Counter
	inflight    prometheus.Gauge
	delivery    *prometheus.CounterVec
	slackCalls  *prometheus.CounterVec
	slackErrors *prometheus.CounterVec
	kube        *prometheus.CounterVec
	notified    *prometheus.CounterVec
	notifyDelay prometheus.Histogram
}

// Busy outcomes (label "outcome" of kueuebot_questions_busy_total).
const (
	// BusyQueued: the question waits for a worker; the user was told so.
	BusyQueued = "queued"
	// BusyRefused: every worker and queue slot was taken (or the user had
	// too many questions waiting); the user was told to ask again.
	BusyRefused = "refused"
)

// New creates the metrics and registers them on reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		questions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueuebot_questions_total",
			Help: "Questions answered, by entry point and verdict code (or outcome: help, refused, failed, timeout, busy, panic, ...).",
		}, []string{"entry", "verdict"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "kueuebot_answer_duration_seconds",
			Help: "Time from receiving a question to delivering its answer to Slack, by entry point.",
			// Slack users expect an answer within a few seconds; the
			// default question timeout is 30 s.
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60},
		}, []string{"entry"}),
		ack: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "kueuebot_ack_duration_seconds",
			Help: "Time from receiving a Slack request to acknowledging it, by transport (Slack wants it within 3 s).",
			// The bot acks before any work: well under 100 ms.
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 3},
		}, []string{"transport"}),
		busy: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueuebot_questions_busy_total",
			Help: "Questions that found every worker busy: queued (the user was told to wait) or refused (the user was told to ask again).",
		}, []string{"outcome"}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kueuebot_question_panics_total",
			Help: "Questions whose handling panicked (the user got an apology; the bot kept running).",
		}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kueuebot_questions_in_flight",
			Help: "Questions accepted and not yet answered (running or queued).",
		}),
		delivery: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueuebot_answers_undelivered_total",
			Help: "Answers that could not be delivered to Slack on any path, by entry point.",
		}, []string{"entry"}),
		slackCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueuebot_slack_api_calls_total",
			Help: "Slack Web API calls (each retry counts), by method; response_url posts are method response_url.",
		}, []string{"method"}),
		slackErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueuebot_slack_api_errors_total",
			Help: "Slack Web API calls that failed, by method and error (Slack's error code, ratelimited, http_NNN or transport).",
		}, []string{"method", "error"}),
		kube: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueuebot_kube_requests_total",
			Help: "Kubernetes API requests, by verb (get, list, watch, create, ..., discovery) and outcome (ok, forbidden, notfound, error, ...).",
		}, []string{"verb", "outcome"}),
		notified: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kueuebot_notifications_total",
			Help: "Notification DMs posted (Tell me when it starts), by event (Admitted, Running, Evicted, Preempted, Succeeded, Failed, ...).",
		}, []string{"event"}),
		notifyDelay: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "kueuebot_notification_delay_seconds",
			Help: "Time from the watch showing a subscribed job's transition to its DM being posted.",
			// The target is under 10 s at p99.
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 10, 15, 30, 60},
		}),
	}
	reg.MustRegister(m.questions, m.latency, m.ack, m.busy, m.panics, m.inflight, m.delivery, m.slackCalls, m.slackErrors, m.kube, m.notified, m.notifyDelay)
	return m
}

// Notified counts a notification DM of event (a notify.EventType) and,
// when seen is set (the transition came from the watch), observes the
// delay from seeing it to posting the DM.
func (m *Metrics) Notified(event string, seen, posted time.Time) {
	if m == nil {
		return
	}
	m.notified.WithLabelValues(event).Inc()
	if !seen.IsZero() && !posted.Before(seen) {
		m.notifyDelay.Observe(posted.Sub(seen).Seconds())
	}
}

// Question counts an answered question by entry point and verdict (or
// outcome), and observes its latency from receipt to delivery.
func (m *Metrics) Question(e event.Entry, verdict string, took time.Duration) {
	if m == nil {
		return
	}
	if verdict == "" {
		verdict = "unknown"
	}
	m.questions.WithLabelValues(string(e), verdict).Inc()
	m.latency.WithLabelValues(string(e)).Observe(took.Seconds())
}

// Acked observes how long a transport ("socket", "http") took to
// acknowledge a Slack request.
func (m *Metrics) Acked(transport string, took time.Duration) {
	if m != nil {
		m.ack.WithLabelValues(transport).Observe(took.Seconds())
	}
}

// Busy counts a question that found every worker busy (BusyQueued or
// BusyRefused).
func (m *Metrics) Busy(outcome string) {
	if m != nil {
		m.busy.WithLabelValues(outcome).Inc()
	}
}

// Panicked counts a question whose handling panicked.
func (m *Metrics) Panicked() {
	if m != nil {
		m.panics.Inc()
	}
}

// InFlight adds delta to the questions accepted and not yet answered.
func (m *Metrics) InFlight(delta float64) {
	if m != nil {
		m.inflight.Add(delta)
	}
}

// Undelivered counts an answer that could not be delivered on any path.
func (m *Metrics) Undelivered(e event.Entry) {
	if m != nil {
		m.delivery.WithLabelValues(string(e)).Inc()
	}
}

// SlackCall counts one Slack Web API call (each retry counts) by method
// ("chat.postMessage", or "response_url").
func (m *Metrics) SlackCall(method string) {
	if m != nil {
		m.slackCalls.WithLabelValues(method).Inc()
	}
}

// SlackError counts a failed Slack Web API call by method and error:
// Slack's error code, "ratelimited", "http_NNN" or "transport". The caller
// keeps the label's cardinality bounded.
func (m *Metrics) SlackError(method, code string) {
	if m != nil {
		m.slackErrors.WithLabelValues(method, code).Inc()
	}
}

// WrapKubeTransport counts the Kubernetes requests that pass through rt by
// verb and outcome. Set it as rest.Config.WrapTransport on the bot's base
// config: the impersonating copies made per caller inherit it.
func (m *Metrics) WrapKubeTransport(rt http.RoundTripper) http.RoundTripper {
	if m == nil {
		return rt
	}
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		m.kube.WithLabelValues(kubeVerb(req), kubeOutcome(resp, err)).Inc()
		return resp, err
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// kubeVerb derives the Kubernetes verb of a request from its method and
// path, as the API server's request info does for resource requests:
// /api/v1/namespaces/NS/pods is a list, .../pods/NAME a get, ?watch=true a
// watch. Paths that name no resource (/api, /apis/GROUP/VERSION, /version)
// are "discovery".
func kubeVerb(req *http.Request) string {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	// Strip the prefix: api/VERSION or apis/GROUP/VERSION.
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return "discovery"
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		if len(parts) == 2 {
			// /namespaces/NS is the namespace object itself.
			parts = []string{"namespaces", parts[1]}
		} else {
			parts = parts[2:]
		}
	}
	if len(parts) == 0 || parts[0] == "" {
		return "discovery"
	}
	named := len(parts) >= 2
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1":
			return "watch"
		case named:
			return "get"
		default:
			return "list"
		}
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	}
	return "other"
}

// kubeOutcome classifies a response: ok, forbidden, notfound, unauthorized,
// throttled, servererror, clienterror, or error (no response).
func kubeOutcome(resp *http.Response, err error) string {
	switch {
	case err != nil:
		return "error"
	case resp.StatusCode < 300:
		return "ok"
	case resp.StatusCode == http.StatusUnauthorized:
		return "unauthorized"
	case resp.StatusCode == http.StatusForbidden:
		return "forbidden"
	case resp.StatusCode == http.StatusNotFound:
		return "notfound"
	case resp.StatusCode == http.StatusTooManyRequests:
		return "throttled"
	case resp.StatusCode >= 500:
		return "servererror"
	default:
		return "clienterror"
	}
}
