package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Ops configures how the bot is operated: its metrics and health listener
// and its shutdown.
type Ops struct {
	// ListenAddr is where /metrics, /healthz and /readyz are served, apart
	// from Slack traffic, e.g. ":9090".
	ListenAddr string `mapstructure:"listenAddr"`
	// ShutdownGrace is how long the bot, on SIGTERM, keeps answering the
	// questions it already acknowledged before it exits. Keep it under the
	// pod's terminationGracePeriodSeconds (30 s by default).
	ShutdownGrace time.Duration `mapstructure:"shutdownGrace"`
	// Workers is how many questions are answered at once.
	Workers int `mapstructure:"workers"`
	// QueueSize is how many questions may wait for a worker (the user is
	// told "busy, I will answer in a moment"); beyond it a question is
	// refused with "too busy, ask again in a minute".
	QueueSize int `mapstructure:"queueSize"`
	// AnswerTimeout bounds one question (identity and cluster reads); the
	// user is told what timed out.
	AnswerTimeout time.Duration `mapstructure:"answerTimeout"`
}

// Ops defaults.
const (
	DefaultOpsListenAddr = ":9090"
	DefaultShutdownGrace = 25 * time.Second
	maxShutdownGrace     = 10 * time.Minute
	DefaultWorkers       = 8
	DefaultQueueSize     = 256
	DefaultAnswerTimeout = 30 * time.Second
)

func (c *Config) validateOps(errs *errList) {
	o := c.Ops
	if o.ListenAddr == "" {
		errs.addf("ops.listenAddr", "required, e.g. %q (the probes and metrics need it)", DefaultOpsListenAddr)
	} else if err := checkListenAddr(o.ListenAddr); err != nil {
		errs.addf("ops.listenAddr", "%v", err)
	}
	if c.Slack.Mode == ModeHTTP && o.ListenAddr == c.Slack.ListenAddr && !strings.HasSuffix(o.ListenAddr, ":0") {
		errs.addf("ops.listenAddr", "must differ from slack.listenAddr (%s): metrics and probes get a port of their own", c.Slack.ListenAddr)
	}
	if o.ShutdownGrace <= 0 || o.ShutdownGrace > maxShutdownGrace {
		errs.addf("ops.shutdownGrace", "must be between 1s and %s, got %s", maxShutdownGrace, o.ShutdownGrace)
	}
	if o.Workers < 1 || o.Workers > 256 {
		errs.addf("ops.workers", "got %d, want 1..256 (questions answered at once)", o.Workers)
	}
	if o.QueueSize < 0 || o.QueueSize > 100000 {
		errs.addf("ops.queueSize", "got %d, want 0..100000 (questions waiting for a worker)", o.QueueSize)
	}
	if o.AnswerTimeout < time.Second || o.AnswerTimeout > 5*time.Minute {
		errs.addf("ops.answerTimeout", "got %s, want a duration between 1s and 5m, e.g. \"30s\"", o.AnswerTimeout)
	}
}

// checkListenAddr accepts "host:port" or ":port" with a numeric port.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. \":9090\"): %w", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", addr, port)
	}
	return nil
}
