package delivery

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/bot/metrics"
)

// Web API retry policy: a 429 is retried after the Retry-After Slack sends,
// at most MaxSlackRetries times (then the call fails with
// *slack.RateLimitedError and the failure is logged and counted). A wait
// never outlives the call's context: a Retry-After longer than the time
// the call has left (less retryMargin) fails the call at once, so that the
// answer can still go another way (the DM) instead of waiting in vain.
const (
	MaxSlackRetries = 3
	// retryAfterDefault is the wait when a 429 carries no Retry-After.
	retryAfterDefault = 5 * time.Second
	// retryJitter spreads retries of replicas hit by the same limit.
	retryJitter = 250 * time.Millisecond
	// retryMargin is the time a call must have left after a 429's wait to
	// be retried: enough for the retry itself and a fallback.
	retryMargin = 3 * time.Second
	// slackResponseLimit bounds how much of a Web API response is read to
	// find its error code.
	slackResponseLimit = 4 << 20
)

// SlackClientOptions configures NewSlackClient.
type SlackClientOptions struct {
	// BotToken (xoxb-) authenticates Web API calls.
	BotToken string
	// AppToken (xapp-) opens Socket Mode connections; empty in HTTP mode.
	AppToken string
	// APIURL overrides Slack's Web API base URL (ending in "/").
	APIURL string
	// Metrics counts calls and errors by method; nil counts nothing.
	Metrics *metrics.Metrics
	// HTTPClient sends the requests; nil: a client with a 30 s timeout.
	HTTPClient *http.Client
}

// NewSlackClient builds the Web API client every part of the bot uses:
// calls, including response_url posts, go through one HTTP client that
// counts them by method (and Slack's error code), under a retry layer that
// honours 429 Retry-After with bounded retries.
func NewSlackClient(o SlackClientOptions) *slack.Client {
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	opts := []slack.Option{
		slack.OptionHTTPClient(&countingClient{client: hc, metrics: o.Metrics}),
		slack.OptionRetryConfig(slack.RetryConfig{
			MaxRetries:         MaxSlackRetries,
			Handlers:           []slack.RetryHandler{withinDeadline{slack.NewRateLimitErrorRetryHandler(slack.RetryConfig{RetryAfterDuration: retryAfterDefault, RetryAfterJitter: retryJitter})}},
			RetryAfterDuration: retryAfterDefault,
			RetryAfterJitter:   retryJitter,
		}),
	}
	if o.AppToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(o.AppToken))
	}
	if o.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(o.APIURL))
	}
	return slack.New(o.BotToken, opts...)
}

// withinDeadline retries only when the wait leaves the call retryMargin
// before its context's deadline.
type withinDeadline struct{ slack.RetryHandler }

func (h withinDeadline) ShouldRetry(state *slack.RetryState, req *http.Request, resp *http.Response, err error) (bool, time.Duration) {
	retry, wait := h.RetryHandler.ShouldRetry(state, req, resp, err)
	if !retry {
		return false, 0
	}
	if dl, ok := req.Context().Deadline(); ok && time.Until(dl) < wait+retryMargin {
		return false, 0
	}
	return true, wait
}

// countingClient counts every Web API call and its outcome: HTTP errors,
// 429s and Slack's own {"ok":false,"error":...} answers.
type countingClient struct {
	client  *http.Client
	metrics *metrics.Metrics
}

// slackMethod names the API method of a request: the last path element of
// a Web API URL ("chat.postMessage"), or "response_url" for the one-off
// URLs Slack hands out with interactions and commands.
func slackMethod(req *http.Request) string {
	p := req.URL.Path
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	if strings.Contains(p, ".") && !strings.ContainsAny(p, "=?&") && len(p) < 64 {
		return p
	}
	return "response_url"
}

func (c *countingClient) Do(req *http.Request) (*http.Response, error) {
	method := slackMethod(req)
	resp, err := c.client.Do(req)
	if c.metrics == nil {
		return resp, err
	}
	c.metrics.SlackCall(method)
	switch {
	case err != nil:
		c.metrics.SlackError(method, "transport")
		return resp, err
	case resp.StatusCode == http.StatusTooManyRequests:
		c.metrics.SlackError(method, "ratelimited")
		return resp, nil
	case resp.StatusCode >= 300:
		c.metrics.SlackError(method, "http_"+strconv.Itoa(resp.StatusCode))
		return resp, nil
	}
	// Slack reports most failures in a 200 body: read it (bounded), note
	// the error code, and hand the same bytes on.
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, slackResponseLimit))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		c.metrics.SlackError(method, "transport")
		return resp, nil
	}
	var r struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &r) == nil && r.OK != nil && !*r.OK {
		c.metrics.SlackError(method, errorLabel(r.Error))
	}
	return resp, nil
}

// errorLabel keeps Slack's error codes (short snake_case words) as label
// values and folds anything else into "other", so a strange answer cannot
// blow up the metric's cardinality.
func errorLabel(code string) string {
	if code == "" || len(code) > 48 {
		return "other"
	}
	for _, r := range code {
		if (r < 'a' || r > 'z') && r != '_' && (r < '0' || r > '9') {
			return "other"
		}
	}
	return code
}
