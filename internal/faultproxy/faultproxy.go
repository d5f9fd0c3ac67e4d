// Package faultproxy is a reverse proxy for tests that fails one chosen
// request on its way to an API server: with a 500, a 503, a 429 with
// Retry-After, a hang past the client's timeout, or a reset connection. It
// serves plain HTTP on loopback and forwards everything else unchanged
// (headers included, so impersonation and bearer tokens pass through).
package faultproxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Fault is how the chosen request fails.
type Fault string

// Faults.
const (
	// InternalError answers 500 with a metav1.Status body.
	InternalError Fault = "500"
	// Unavailable answers 503 with a plain-text body, as a load balancer in
	// front of the API server would.
	Unavailable Fault = "503"
	// TooManyRequests answers 429 with Retry-After: 1 and a metav1.Status
	// body, as the API server's priority and fairness does.
	TooManyRequests Fault = "429"
	// Hang accepts the request and never answers, until the client gives up
	// (or Proxy.MaxHang passes).
	Hang Fault = "hang"
	// Reset closes the connection with a TCP reset before answering.
	Reset Fault = "reset"
)

// All lists every fault.
func All() []Fault { return []Fault{InternalError, Unavailable, TooManyRequests, Hang, Reset} }

// Proxy forwards to an API server and fails the request it is armed for.
type Proxy struct {
	// URL is the proxy's address (http://127.0.0.1:port).
	URL string
	// MaxHang bounds a Hang, so that a client without a timeout cannot
	// block the test forever; 30 s when zero.
	MaxHang time.Duration
	// RetryAfter is the Retry-After header of a TooManyRequests answer, in
	// seconds; "1" when empty.
	RetryAfter string

	srv   *httptest.Server
	rp    *httputil.ReverseProxy
	mu    sync.Mutex
	count int
	at    int
	fault Fault
	hit   bool
	log   []string
}

// New starts a proxy on loopback in front of backend, reaching it through
// transport (which carries the backend's TLS settings). Close it when done.
func New(backend *url.URL, transport http.RoundTripper) *Proxy {
	p := &Proxy{rp: httputil.NewSingleHostReverseProxy(backend)}
	p.rp.Transport = transport
	p.rp.FlushInterval = -1 // watches and streams pass as they come
	p.srv = httptest.NewServer(p)
	p.URL = p.srv.URL
	return p
}

// Close stops the proxy.
func (p *Proxy) Close() { p.srv.Close() }

// Arm resets the request count and fails the n-th request from now
// (1-based) with f; n <= 0 fails none.
func (p *Proxy) Arm(n int, f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count, p.at, p.fault, p.hit, p.log = 0, n, f, false, nil
}

// Count is how many requests passed since the last Arm, the failed one
// included.
func (p *Proxy) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

// Hit reports whether the armed request came.
func (p *Proxy) Hit() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hit
}

// Requests lists "METHOD path" of the requests since the last Arm.
func (p *Proxy) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.count++
	p.log = append(p.log, r.Method+" "+r.URL.Path)
	fail := p.count == p.at
	if fail {
		p.hit = true
	}
	f := p.fault
	p.mu.Unlock()
	if !fail {
		p.rp.ServeHTTP(w, r)
		return
	}
	switch f {
	case InternalError:
		status(w, http.StatusInternalServerError, "InternalError", "Internal error occurred: injected by faultproxy", "")
	case Unavailable:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "upstream connect error or disconnect/reset before headers\n")
	case TooManyRequests:
		ra := p.RetryAfter
		if ra == "" {
			ra = "1"
		}
		status(w, http.StatusTooManyRequests, "TooManyRequests", "The server has received too many requests and has asked us to try again later", ra)
	case Hang:
		maxHang := p.MaxHang
		if maxHang <= 0 {
			maxHang = 30 * time.Second
		}
		ctx, cancel := context.WithTimeout(r.Context(), maxHang)
		defer cancel()
		<-ctx.Done()
	case Reset:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("faultproxy: cannot hijack the connection")
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close sends RST
		}
		_ = conn.Close()
	}
}

func status(w http.ResponseWriter, code int, reason, msg, retryAfter string) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(code)
	_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":`+
		strconv.Quote(msg)+`,"reason":"`+reason+`","code":`+strconv.Itoa(code)+`}`)
}
