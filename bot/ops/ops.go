package ops

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Readiness says whether the bot can take questions: in Socket Mode while
// it holds a connection to Slack, in HTTP mode while it listens. It turns
// false as soon as a shutdown begins. The zero value is not ready.
type Readiness struct {
	ready  atomic.Bool
	reason atomic.Value // string
}

// Set records readiness and why.
func (r *Readiness) Set(ready bool, reason string) {
	if r == nil {
		return
	}
	r.ready.Store(ready)
	r.reason.Store(reason)
}

// Ready reports readiness and the reason last given.
func (r *Readiness) Ready() (bool, string) {
	if r == nil {
		return false, "no readiness"
	}
	reason, _ := r.reason.Load().(string)
	return r.ready.Load(), reason
}

// Server serves /metrics (from its own registry), /healthz (the process
// is alive) and /readyz (Readiness) on an address of its own, apart from
// Slack traffic.
type Server struct {
	// Addr is the listen address, e.g. ":9090".
	Addr string
	// Gatherer provides /metrics.
	Gatherer prometheus.Gatherer
	// Ready answers /readyz.
	Ready *Readiness
	// Log receives listener errors; nil discards.
	Log *slog.Logger

	ln  net.Listener
	srv *http.Server
}

// Handler returns the ops endpoints.
func (o *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.Gatherer, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ok, reason := o.Ready.Ready()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready: " + reason + "\n"))
			return
		}
		_, _ = w.Write([]byte("ok: " + reason + "\n"))
	})
	return mux
}

// Listen opens the listener (so a bad address fails at start).
func (o *Server) Listen() error {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	o.ln = ln
	o.srv = &http.Server{Handler: o.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := o.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && o.Log != nil {
			o.Log.Error("ops listener failed", slog.Any("error", err))
		}
	}()
	return nil
}

// ListenAddr is the address listened on (after Listen).
func (o *Server) ListenAddr() string {
	if o.ln == nil {
		return ""
	}
	return o.ln.Addr().String()
}

// Close stops the listener.
func (o *Server) Close(ctx context.Context) error {
	if o.srv == nil {
		return nil
	}
	return o.srv.Shutdown(ctx)
}
