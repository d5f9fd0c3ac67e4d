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
	manifest, ok := explain.ManifestFromMessage(ev.Text)
	file := ""
	if !ok {
		f, found := manifestFile(ev.Files)
		if !found {
			return Reply{Verdict: "unparsable", Message: blocks.Notice("", "I found no manifest in that message. Use *Will this fit?* on a message with the job's YAML in a code block (```...```) or attached as a `.yaml` file.")}
		}
		if b.Files == nil {
			return Reply{Verdict: "unsupported", Message: blocks.Notice("", "I cannot read attached files here. Paste the manifest in a code block (```...```) and use the shortcut on that message.")}
		}
		if f.Size > MaxManifestBytes {
			return Reply{Verdict: "unparsable", Message: blocks.Notice("", "That file is too large for a job manifest ("+blocks.Code(f.Name)+" is over 256 KiB).")}
		}
		data, err := b.Files.Download(ctx, f.URL, MaxManifestBytes)
		if err != nil {
			b.log().WarnContext(ctx, "downloading a manifest failed", slog.String("file", f.Name), slog.Any("error", err))
			msg := "I could not download " + blocks.Code(f.Name) + " from Slack. Paste the manifest in a code block and try again."
			if errors.Is(err, delivery.ErrFileTooLarge) {
				msg = "That file is too large for a job manifest (" + blocks.Code(f.Name) + " is over 256 KiB)."
			}
			return Reply{Verdict: "failed", Message: blocks.Notice("", msg)}
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
