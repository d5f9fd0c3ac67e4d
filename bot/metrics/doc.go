// Package metrics is the bot's Prometheus instrumentation: questions by
// entry point and verdict, answer and ack latency, busy and undelivered
// answers, panics, Slack Web API calls and errors, and Kubernetes requests
// (WrapKubeTransport). Every part of the bot records through one
// *Metrics; a nil *Metrics records nothing.
package metrics
