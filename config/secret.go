package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// redacted is what a Secret prints as, whatever the verb or encoder.
const redacted = "[REDACTED]"

// Secret holds a credential such as a Slack token. Its String, GoString,
// Format, LogValue, MarshalJSON and MarshalText methods all redact, so a
// Secret cannot leak through fmt, log/slog or an encoder by accident; only
// Reveal returns the value, and it should be called right where the value
// is handed to the library that needs it.
type Secret struct {
	value string
}

// NewSecret wraps a value.
func NewSecret(v string) Secret { return Secret{value: v} }

// Reveal returns the secret value. Call it only to hand the value to the
// client that needs it, never to log or print it.
func (s Secret) Reveal() string { return s.value }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.value == "" }

// String redacts.
func (s Secret) String() string {
	if s.value == "" {
		return ""
	}
	return redacted
}

// GoString redacts (used by %#v).
func (s Secret) GoString() string { return fmt.Sprintf("config.Secret(%q)", s.String()) }

// Format redacts for every fmt verb, including %d and %x, which would
// otherwise print the struct's field.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = fmt.Fprint(f, s.GoString())
		return
	}
	_, _ = fmt.Fprint(f, s.String())
}

// LogValue redacts in log/slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON redacts.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText redacts (YAML and other text encoders).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText sets the value; it lets the config decoder fill a Secret
// from a string in the file or the environment.
func (s *Secret) UnmarshalText(b []byte) error {
	s.value = string(b)
	return nil
}
