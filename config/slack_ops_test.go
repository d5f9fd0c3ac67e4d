package config

import (
	"strings"
	"testing"
	"time"
)

// TestSlackAndOpsValidation covers the keys of the slack and ops sections
// the bot's pipeline reads: the reply privacy default, the API URL's
// scheme, the worker pool and the answer timeout.
func TestSlackAndOpsValidation(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string // substring of the error; empty: valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"thread replies", func(c *Config) { c.Slack.Replies = RepliesThread }, ""},
		{"bad replies", func(c *Config) { c.Slack.Replies = "public" }, "slack.replies"},
		{"https api", func(c *Config) { c.Slack.APIURL = "https://slack.example.com/api/" }, ""},
		{"loopback http api", func(c *Config) { c.Slack.APIURL = "http://127.0.0.1:8080/api/" }, ""},
		{"ipv6 loopback http api", func(c *Config) { c.Slack.APIURL = "http://[::1]:8080/api/" }, ""},
		{"localhost http api", func(c *Config) { c.Slack.APIURL = "http://localhost:8080/api/" }, ""},
		{"remote http api", func(c *Config) { c.Slack.APIURL = "http://proxy.example.com/api/" }, "use https"},
		{"api without slash", func(c *Config) { c.Slack.APIURL = "https://slack.example.com/api" }, "slack.apiURL"},
		{"no workers", func(c *Config) { c.Ops.Workers = 0 }, "ops.workers"},
		{"negative queue", func(c *Config) { c.Ops.QueueSize = -1 }, "ops.queueSize"},
		{"zero queue", func(c *Config) { c.Ops.QueueSize = 0 }, ""},
		{"tiny timeout", func(c *Config) { c.Ops.AnswerTimeout = time.Millisecond }, "ops.answerTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestOpsFromYAML(t *testing.T) {
	c, err := Parse([]byte("slack:\n  replies: thread\nops:\n  workers: 3\n  queueSize: 7\n  answerTimeout: 12s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Slack.Replies != RepliesThread || c.Ops.Workers != 3 || c.Ops.QueueSize != 7 || c.Ops.AnswerTimeout != 12*time.Second {
		t.Errorf("decoded %+v %+v", c.Slack, c.Ops)
	}
}
