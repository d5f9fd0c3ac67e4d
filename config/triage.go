package config

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Triage configures answers to stuck-job questions posted in support
// channels: a human's top-level message there that signals a stuck job
// (one of the patterns, or a job written as kind/name or after a job
// word) gets an :eyes: reaction, an answer in its thread read as the
// poster (their Kubernetes identity, as for every other question), and a
// :white_check_mark: once answered.
//
// Privacy: a thread answer in a channel is visible to every member of
// that channel, not only to the poster. It holds what the poster's access
// let the bot read (queue names, quotas, usage, events). Use the summary
// detail (only the verdict code and headline in the thread, the full
// answer privately to the poster), or configure one triage channel per
// team so that the members of a channel may all see that team's jobs.
type Triage struct {
	// Channels are the Slack channel IDs (C...) whose messages the bot
	// triages; the bot must be a member. Empty: triage is off.
	Channels []string `mapstructure:"channels"`
	// Patterns are the phrases that mark a message as a stuck-job question,
	// matched case-insensitively (after full-width characters are folded):
	// a phrase that starts or ends with a letter or digit matches whole
	// words only ("pending" does not match "spending"); Chinese and
	// Japanese phrases match anywhere. Setting it replaces the defaults
	// (English, French, Japanese and Chinese).
	Patterns []string `mapstructure:"patterns"`
	// Detail is what the thread answer shows: "summary" (default: the
	// verdict code and headline in the thread, the full answer only to the
	// poster, ephemerally) or "full" (the full answer in the thread, seen by
	// the whole channel).
	Detail string `mapstructure:"detail"`
	// Window is how long an answer is remembered: the same job asked about
	// again in the same channel within it gets a link to the earlier answer
	// when the verdict did not change, instead of a new full answer.
	// Memory only: a restart forgets it (the next question gets a fresh
	// answer). 0 turns linking off.
	Window time.Duration `mapstructure:"window"`
	// Escalation adds an "Escalate to the platform team" button to triage
	// answers.
	Escalation TriageEscalation `mapstructure:"escalation"`
	// Language is the language of what the bot posts for the whole
	// channel on its own behalf (the escalation summary for the on-call
	// team): en, fr, ja or zh; empty means language.default. Answers to a
	// poster are in the poster's language (their choice, their question's
	// language, their Slack locale), as every answer is.
	Language string `mapstructure:"language"`
}

// TriageEscalation configures the escalation button.
type TriageEscalation struct {
	// UserGroup is the Slack user group ID (S...) of the on-call platform
	// team, mentioned in the escalation summary posted in the thread.
	// Empty: no escalation button.
	UserGroup string `mapstructure:"userGroup"`
}

// Triage detail values.
const (
	// TriageSummary posts the verdict code and headline in the thread and
	// the full answer to the poster only.
	TriageSummary = "summary"
	// TriageFull posts the full answer in the thread.
	TriageFull = "full"
)

// DefaultTriageWindow is how long triage answers are linked to instead of
// repeated.
const DefaultTriageWindow = 30 * time.Minute

// maxTriageWindow bounds Window: the bot keeps answers in memory.
const maxTriageWindow = 24 * time.Hour

// DefaultTriagePatterns are the stuck-job phrases in the four languages the
// bot understands.
func DefaultTriagePatterns() []string {
	return []string{
		// English
		"stuck", "pending", "waiting", "not starting", "not running", "won't start", "doesn't start", "never starts",
		// French
		"en attente", "bloqué", "bloquée", "coincé", "ne démarre pas", "ne se lance pas",
		// Japanese
		"待って", "動かない", "始まらない", "詰まって", "保留", "待機",
		// Chinese
		"等待", "卡住", "排队", "不运行", "没有运行", "挂起",
	}
}

func (c *Config) validateTriage(errs *errList) {
	t := c.Triage
	for i, ch := range t.Channels {
		if !reChannelID.MatchString(ch) || strings.HasPrefix(ch, "G") {
			errs.addf(fmt.Sprintf("triage.channels[%d]", i), "got %q, want a public channel ID such as C012AB3CD (the bot reads message.channels)", ch)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(t.Channels)))) != len(t.Channels) {
		errs.addf("triage.channels", "lists a channel twice")
	}
	if len(t.Channels) > 0 && len(t.Patterns) == 0 {
		errs.addf("triage.patterns", "empty: no message could match; remove the key to use the defaults")
	}
	for i, p := range t.Patterns {
		if n := utf8.RuneCountInString(strings.TrimSpace(p)); n < 2 || n > 64 {
			errs.addf(fmt.Sprintf("triage.patterns[%d]", i), "got %q, want a phrase of 2 to 64 characters", p)
		}
	}
	switch t.Detail {
	case TriageSummary, TriageFull:
	default:
		errs.addf("triage.detail", "got %q, want %q or %q", t.Detail, TriageSummary, TriageFull)
	}
	if t.Window < 0 || t.Window > maxTriageWindow {
		errs.addf("triage.window", "got %s, want a duration between 0 (no linking) and %s, e.g. \"30m\"", t.Window, maxTriageWindow)
	}
	checkLanguage(errs, "triage.language", t.Language)
	if g := t.Escalation.UserGroup; g != "" && !reGroupID.MatchString(g) {
		errs.addf("triage.escalation.userGroup", "got %q, want a Slack user group ID such as S012AB3CD", g)
	}
}
