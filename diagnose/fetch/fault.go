package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kueuebot/kueuebot/i18n"
)

// FaultClass says how a read failed when the failure says nothing about the
// object that was read: the cluster did not give an answer.
type FaultClass string

// Fault classes. NotFound and Forbidden are answers, not faults: they stay
// Gaps (and read the same for the target, so that nothing leaks).
const (
	// FaultTimeout: no answer within the per-request timeout, or the
	// server's own timeout (504, StatusReasonTimeout).
	FaultTimeout FaultClass = "Timeout"
	// FaultServerError: the API server answered 5xx.
	FaultServerError FaultClass = "ServerError"
	// FaultThrottled: 429 Too Many Requests, after client-go's retries.
	FaultThrottled FaultClass = "Throttled"
	// FaultUnauthorized: 401, the credentials were not accepted (an
	// expired token, a wrong kubeconfig).
	FaultUnauthorized FaultClass = "Unauthorized"
	// FaultRejected: another 4xx than 401, 403 and 404 (the request itself
	// was refused, e.g. 400 or 422).
	FaultRejected FaultClass = "Rejected"
	// FaultUnreachable: the connection could not be made (refused, no route,
	// DNS).
	FaultUnreachable FaultClass = "Unreachable"
	// FaultConnectionLost: the connection broke (reset, closed before the
	// whole answer came).
	FaultConnectionLost FaultClass = "ConnectionLost"
	// FaultTLS: the TLS handshake failed (certificate, protocol).
	FaultTLS FaultClass = "TLS"
	// FaultMalformed: an answer came but could not be decoded.
	FaultMalformed FaultClass = "Malformed"
)

// ReadError is a read the diagnosis cannot do without (the job, its
// Workload, an admitted job's Pods, API discovery) that failed with a fault
// of the cluster. Fetch returns it instead of a Snapshot, so that a sick API
// server is never reported as a fact about the job (such as "not found").
// It implements UserMessage for the bot.
type ReadError struct {
	// Kind, Namespace and Name say what was read, e.g. "Workload".
	Kind, Namespace, Name string
	// Class is how it failed.
	Class FaultClass
	// Status is the HTTP status when the server answered, else 0.
	Status int
	// Timeout is the per-request timeout that was in force.
	Timeout time.Duration
	// Err is the client's error.
	Err error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("reading %s: the cluster %s (%v); the job itself was not judged", e.what(), e.Class.describe(e.Status, e.Timeout), e.Err)
}

// Unwrap returns the client's error.
func (e *ReadError) Unwrap() error { return e.Err }

// UserMessage is the plain-text answer for the person who asked, in
// English: which read failed, that the job was not judged, and what to do.
func (e *ReadError) UserMessage() string { return e.UserMsg().String() }

// UserMessageIn is UserMessage in language l.
func (e *ReadError) UserMessageIn(l i18n.Lang) string { return e.UserMsg().In(l) }

// UserMsg is UserMessage as a catalog message, for the messages that quote
// it (a worker that did not answer, an estimate's missing reads). The
// client's error text is not in it.
func (e *ReadError) UserMsg() i18n.Message {
	return i18n.M("fetch.readError", e.Class.describeMsg(e.Status, e.Timeout), e.whatMsg())
}

// whatMsg says what was read, after "when I read".
func (e *ReadError) whatMsg() i18n.Message {
	switch {
	case e.Kind == kindDiscovery:
		return i18n.M("fetch.read.discovery", i18n.Name(e.Name))
	case e.Kind == KindNamespaces:
		return i18n.M("fetch.read.namespaces")
	case e.Name == "":
		return i18n.M("fetch.read.list", i18n.Name(e.Kind))
	case e.Namespace != "":
		return i18n.M("fetch.read.nsObject", i18n.Name(e.Kind), i18n.Name(e.Namespace), i18n.Obj(e.Kind, e.Namespace, e.Name))
	}
	return i18n.M("fetch.read.object", i18n.Name(e.Kind), i18n.Obj(e.Kind, "", e.Name))
}

func (e *ReadError) what() string { return e.whatMsg().String() }

// Kinds of reads that are not of one object, for ReadError.Kind.
const (
	kindDiscovery = "API discovery"
	// KindNamespaces is the search for the namespaces the caller may use.
	KindNamespaces = "namespaces"
)

// describe says, after "The cluster", what went wrong, in English.
func (c FaultClass) describe(status int, timeout time.Duration) string {
	return c.describeMsg(status, timeout).String()
}

// describeMsg is describe as a catalog message. The HTTP status stays as
// the protocol writes it ("HTTP 503 Service Unavailable").
func (c FaultClass) describeMsg(status int, timeout time.Duration) i18n.Message {
	switch c {
	case FaultTimeout:
		if timeout > 0 {
			return i18n.M("fetch.fault.timeoutWithin", i18n.Verbatim(timeout.Round(100*time.Millisecond).String()))
		}
		return i18n.M("fetch.fault.timeout")
	case FaultServerError:
		return i18n.M("fetch.fault.serverError", httpStatus(status))
	case FaultThrottled:
		return i18n.M("fetch.fault.throttled")
	case FaultUnauthorized:
		return i18n.M("fetch.fault.unauthorized", i18n.Verbatim("HTTP 401 Unauthorized"))
	case FaultRejected:
		return i18n.M("fetch.fault.rejected", httpStatus(status))
	case FaultUnreachable:
		return i18n.M("fetch.fault.unreachable")
	case FaultConnectionLost:
		return i18n.M("fetch.fault.connectionLost")
	case FaultTLS:
		return i18n.M("fetch.fault.tls")
	}
	return i18n.M("fetch.fault.malformed")
}

// httpStatus is "HTTP 503 Service Unavailable".
func httpStatus(status int) i18n.Verbatim {
	return i18n.Verbatim(fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)))
}

// fault is a classified read failure on its way from a request to the
// collector, which knows what was read.
type fault struct {
	class   FaultClass
	status  int
	timeout time.Duration
	err     error
}

func (f *fault) Error() string { return f.class.describe(f.status, f.timeout) + ": " + f.err.Error() }
func (f *fault) Unwrap() error { return f.err }

// trips reports whether the fault means the server is not answering at all,
// so that later reads are not tried (each would wait for its timeout).
func (f *fault) trips() bool {
	switch f.class {
	case FaultTimeout, FaultUnreachable, FaultConnectionLost, FaultTLS:
		return true
	}
	return false
}

// skipped is the error of a read not tried because an earlier read tripped.
type skipped struct{ first *fault }

func (s *skipped) Error() string { return "not read: an earlier read failed (" + s.first.Error() + ")" }
func (s *skipped) Unwrap() error { return s.first }

// isAnswer reports whether err is the API server's answer about the object
// (missing, or forbidden to the caller), which the diagnosis reports as a
// Gap. A 401 is not: it says the credentials are wrong, not the job.
func isAnswer(err error) bool {
	// errNotRead: a store filled without that kind (a summary that did not
	// list Pods, say) is a gap of the Snapshot, not a fault of the cluster.
	return apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || errors.Is(err, errNotRead)
}

// classify turns a read error into a fault, or returns nil when err is an
// answer (isAnswer) or no error.
func classify(err error, timeout time.Duration) *fault {
	if err == nil || isAnswer(err) {
		return nil
	}
	var f *fault
	if errors.As(err, &f) {
		return f
	}
	out := &fault{class: FaultMalformed, timeout: timeout, err: err}
	var status apierrors.APIStatus
	switch {
	case errors.Is(err, context.DeadlineExceeded) && retriedLostConnection(err):
		// client-go retried a broken connection until the time ran out.
		out.class = FaultConnectionLost
	case errors.Is(err, context.DeadlineExceeded), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err), utilnet.IsTimeout(err):
		out.class = FaultTimeout
	case errors.As(err, &status):
		out.status = int(status.Status().Code)
		switch {
		case out.status == http.StatusTooManyRequests || apierrors.IsTooManyRequests(err):
			out.class, out.status = FaultThrottled, http.StatusTooManyRequests
		case out.status == http.StatusGatewayTimeout:
			out.class = FaultTimeout
		case out.status == http.StatusUnauthorized:
			out.class = FaultUnauthorized
		case out.status >= 500:
			out.class = FaultServerError
		case out.status >= 400:
			out.class = FaultRejected
		case out.status == 0 && apierrors.IsInternalError(err):
			out.class, out.status = FaultServerError, http.StatusInternalServerError
		default:
			out.class = FaultMalformed
		}
	case isTLS(err):
		out.class = FaultTLS
	case utilnet.IsConnectionReset(err), utilnet.IsProbableEOF(err), utilnet.IsHTTP2ConnectionLost(err), errors.Is(err, syscall.EPIPE):
		out.class = FaultConnectionLost
	case utilnet.IsConnectionRefused(err), isDial(err):
		out.class = FaultUnreachable
	case isDecode(err):
		out.class = FaultMalformed
	default:
		var ne net.Error
		if errors.As(err, &ne) {
			out.class = FaultConnectionLost
		}
	}
	return out
}

// retriedLostConnection reports whether client-go's retry wrapper says the
// attempt before the last one lost its connection (the wrapper keeps that
// error only in its text).
func retriedLostConnection(err error) bool {
	_, prev, ok := strings.Cut(err.Error(), "error from a previous attempt: ")
	return ok && (strings.Contains(prev, "connection reset by peer") || strings.HasSuffix(prev, "EOF") || strings.Contains(prev, "broken pipe"))
}

func isDial(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func isTLS(err error) bool {
	var (
		unknownCA *x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		host      x509.HostnameError
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
		alert     tls.AlertError
	)
	return errors.As(err, &unknownCA) || errors.As(err, &invalid) || errors.As(err, &host) ||
		errors.As(err, &verify) || errors.As(err, &record) || errors.As(err, &alert) ||
		strings.Contains(err.Error(), "tls: ")
}

func isDecode(err error) bool {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	return errors.As(err, &syntax) || errors.As(err, &typ) || runtime.IsNotRegisteredError(err) ||
		runtime.IsMissingKind(err) || runtime.IsMissingVersion(err) || runtime.IsStrictDecodingError(err)
}

// AsReadError returns the *ReadError for a failed read of kind (in
// namespace, named name; both may be empty) done outside Fetch, such as
// finding the caller's namespaces; nil when err is no fault: nil, the
// server's answer (NotFound, Forbidden), or a cancellation.
func AsReadError(kind, namespace, name string, err error) *ReadError {
	var re *ReadError
	switch {
	case err == nil || errors.Is(err, context.Canceled):
		return nil
	case errors.As(err, &re):
		return re
	}
	f := classify(err, 0)
	if f == nil {
		return nil
	}
	return newReadError(kind, namespace, name, f)
}
