// Package dispatch is the one place every question goes through, whatever
// the transport: the Dispatcher drops Slack's retries (dedupe), bounds the
// work (workers behind a queue, a bound per user), serves the users in
// turn (fairQueue), times each question out, recovers panics, and always
// tells the user something, through the Handler it was given (package
// bot's *Bot). Transports only Submit; Shutdown drains within the grace.
//
// It knows nothing of what a question means or where an answer goes: it
// reads only a Reply's Outcome, for the metrics.
package dispatch
