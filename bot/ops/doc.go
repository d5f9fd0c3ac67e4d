// Package ops serves what the platform running the bot reads, apart from
// Slack traffic: /metrics, /healthz and /readyz (Server), and says whether
// the bot can take questions (Readiness, which the transports set).
package ops
