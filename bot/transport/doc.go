// Package transport receives what Slack sends and hands it on: Socket Mode
// (SocketMode, the default: an outbound WebSocket) or the signed HTTP
// Events API (HTTPMode: body bounded, signature and timestamp verified,
// replays refused). Both only decode (Decoder: the same payloads either
// way, the bot's own and other bots' messages ignored, membership changes
// applied to the identity cache, support-channel messages turned into
// triage events), acknowledge at once, and Submit the Event to the
// dispatcher. Nothing slow happens here.
package transport
