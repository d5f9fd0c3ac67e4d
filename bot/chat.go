package bot

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// maxLine caps one line of chat input.
const maxLine = 64 * 1024

// Chat is a terminal conversation with the bot. It reads one question per
// line from in, answers each with asker as user, and writes the answer to
// out rendered as text. Interactive: prints a greeting (in the language
// asker answers user in when a question does not tell) and a "you> " prompt
// and stops at "quit", "exit" or EOF. Not interactive: echoes each
// question as "> question", skips blank lines and lines starting with "#",
// and stops at EOF. When ctx ends, Chat returns ctx.Err() at once; a read
// already blocked on in is abandoned (it ends when in does).
func Chat(ctx context.Context, in io.Reader, out io.Writer, user rbac.SlackUser, asker *Asker, interactive bool) error {
	w := &errWriter{w: out}
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 4096), maxLine)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()

	prompt := func() {
		if interactive {
			w.printf("you> ")
		}
	}
	if interactive {
		w.printf("%s\n", i18n.M("bot.chat.greeting").In(asker.Lang.For(ctx, user.ID)))
	}
	prompt()
	for {
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line, ok = <-lines:
		}
		if !ok {
			if interactive {
				w.printf("\n")
			}
			if w.err != nil {
				return w.err
			}
			select {
			case err := <-readErr:
				if err != nil {
					return fmt.Errorf("reading questions: %w", err)
				}
			default:
			}
			return nil
		}
		q := strings.TrimSpace(line)
		switch {
		case q == "" || !interactive && strings.HasPrefix(q, "#"):
			if interactive {
				prompt()
			}
			continue
		case interactive && (q == "quit" || q == "exit"):
			return w.err
		}
		if !interactive {
			w.printf("> %s\n\n", q)
		}
		m := asker.Ask(ctx, user, q)
		w.printf("%s\n", blocks.Text(m.Blocks))
		if w.err != nil {
			return w.err
		}
		prompt()
	}
}

// errWriter remembers the first write error and skips later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
