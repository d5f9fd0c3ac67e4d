// Package config loads kueuebot's configuration into a typed Config.
//
// The rule of the package: it is the only package that imports viper.
// Every key has a default, every key can be overridden from the environment
// (KUEUEBOT_ plus the key path in upper case with dots as underscores, e.g.
// KUEUEBOT_SLACK_BOTTOKEN), unknown keys fail at start naming the key, and
// Validate says what to change. Secrets are of type Secret and never print.
package config
