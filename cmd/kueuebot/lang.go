package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/i18n"
)

// langFlag is --lang: the language of a command's output. Unset, the
// process's locale decides (LC_ALL, LC_MESSAGES, LANG; i18n.FromEnv).
type langFlag struct{ value string }

func (l *langFlag) add(f *pflag.FlagSet) {
	f.StringVar(&l.value, "lang", "", "output language: en, fr, ja or zh (default: from LC_ALL, LC_MESSAGES or LANG, else en); JSON output is the same in every language")
}

// lang is the chosen language; an unknown --lang is a usage error.
func (l *langFlag) lang() (i18n.Lang, error) {
	if l.value == "" {
		return i18n.FromEnv(), nil
	}
	v, ok := i18n.Parse(l.value)
	if !ok {
		return i18n.English, usagef("--lang: %q is not a language kueuebot answers in: want en, fr, ja or zh", l.value)
	}
	return v, nil
}

// writeReport writes a diagnosis in format and language l (diagnose/render
// in l). JSON is the contract, the same in every language.
func writeReport(w io.Writer, format render.Format, r *diagnose.Report, l i18n.Lang) error {
	return render.WriteWith(w, format, r, render.Options{Lang: l})
}
