package bot

import (
	"context"
	"errors"
	"log/slog"
	"path"
	"strings"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/bot/delivery"
	"github.com/kueuebot/kueuebot/bot/event"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
)

// MaxManifestBytes bounds a manifest downloaded for "Will this fit?".
const MaxManifestBytes = 256 << 10

// FileDownloader downloads a file attached to a message
// (*delivery.SlackReplier), at most max bytes.
type FileDownloader interface {
	Download(ctx context.Context, url string, max int64) ([]byte, error)
}

// willItFit answers the "Will this fit?" shortcut: the manifest is the
// message's first code block (or its text, when it is one), else its first
// YAML or JSON file; it is checked as the presser, privately.
func (b *Bot) willItFit(ctx context.Context, ev *event.Event) Reply {
	// The notices are the presser's, in their language (nothing they
	// typed tells one).
	l := b.Asker.Lang.For(ctx, ev.User.ID)
	notice := func(id i18n.ID, args ...i18n.Arg) Message {
		return blocks.Notice("", i18n.Render(l, i18n.M(id, args...)))
	}
	manifest, ok := explain.ManifestFromMessage(ev.Text)
	file := ""
	if !ok {
		f, found := manifestFile(ev.Files)
		if !found {
			return Reply{Verdict: "unparsable", Message: notice("bot.fit.noManifest")}
		}
		if b.Files == nil {
			return Reply{Verdict: "unsupported", Message: notice("bot.fit.noFiles")}
		}
		if f.Size > MaxManifestBytes {
			return Reply{Verdict: "unparsable", Message: notice("bot.fit.tooLarge", i18n.Verbatim(blocks.Code(f.Name)))}
		}
		data, err := b.Files.Download(ctx, f.URL, MaxManifestBytes)
		if err != nil {
			b.log().WarnContext(ctx, "downloading a manifest failed", slog.String("file", f.Name), slog.Any("error", err))
			id := i18n.ID("bot.fit.download")
			if errors.Is(err, delivery.ErrFileTooLarge) {
				id = "bot.fit.tooLarge"
			}
			return Reply{Verdict: "failed", Message: notice(id, i18n.Verbatim(blocks.Code(f.Name)))}
		}
		manifest, file = data, f.Name
	}
	o := b.Asker.fit(ctx, ev.Entry, ev.User, manifest, file)
	return Reply{Message: b.render(o, ev, ToDefault, false), Verdict: o.verdict}
}

// manifestFile is the first attached file that can hold a manifest.
func manifestFile(files []event.File) (event.File, bool) {
	for _, f := range files {
		switch strings.ToLower(path.Ext(f.Name)) {
		case ".yaml", ".yml", ".json":
			if f.URL != "" {
				return f, true
			}
		}
	}
	return event.File{}, false
}
