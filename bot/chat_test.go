package bot

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/internal/golden"
	"github.com/kueuebot/kueuebot/rbac"
)

// checkGolden compares got with testdata/name (go test -update rewrites it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func testAsker() (*Asker, *fakeDiagnoser) {
	d := &fakeDiagnoser{reports: map[string]diagnose.Report{"train-7": waitingReport()}}
	return &Asker{
		Resolve: &fakeResolver{ids: map[string]rbac.Identity{alice.ID: aliceID}},
		Explain: d,
	}, d
}

func TestChatScript(t *testing.T) {
	script := strings.Join([]string{
		"# a demo script: comments and blank lines are skipped",
		"",
		"help",
		"why is my job train-7 waiting?",
		"   ",
		"what about rayjob my-ray in ns team-b",
		"Train-7",
	}, "\n") // no newline at the end: the last line still counts
	a, d := testAsker()
	var out strings.Builder
	if err := Chat(t.Context(), strings.NewReader(script), &out, alice, a, false); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	checkGolden(t, "chat_script.txt", []byte(out.String()))
	if len(d.calls) != 2 {
		t.Errorf("Diagnose called %d times, want 2", len(d.calls))
	}
}

func TestChatInteractive(t *testing.T) {
	a, _ := testAsker()
	var out strings.Builder
	in := "\nqueue team-a\nquit\ntrain-7\n"
	if err := Chat(t.Context(), strings.NewReader(in), &out, alice, a, true); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := "kueuebot chat: ask why a job is waiting. Type help for examples, quit to leave.\n" +
		"you> you> I cannot list queues here. Ask me about a job instead, e.g. `why is train-7 waiting?`\n\n" +
		"you> "
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestChatGreetingInEachLanguage: the interactive chat greets in the
// language the bot answers the user in (here language.default).
func TestChatGreetingInEachLanguage(t *testing.T) {
	for l, want := range map[i18n.Lang]string{
		i18n.English:  "kueuebot chat: ask why a job is waiting. Type help for examples, quit to leave.",
		i18n.French:   "kueuebot chat : demandez pourquoi un job attend. Tapez help pour des exemples, quit pour quitter.",
		i18n.Japanese: "kueuebot chat：ジョブが待機している理由を質問してください。help で例を表示し、quit で終了します。",
		i18n.Chinese:  "kueuebot chat：询问作业为什么在等待。输入 help 查看示例，输入 quit 退出。",
	} {
		a, _ := testAsker()
		a.Lang = &Languages{Default: l}
		var out strings.Builder
		if err := Chat(t.Context(), strings.NewReader(""), &out, alice, a, true); err != nil {
			t.Fatalf("%s: Chat: %v", l, err)
		}
		if diff := cmp.Diff(want+"\nyou> \n", out.String()); diff != "" {
			t.Errorf("%s: output (-want +got):\n%s", l, diff)
		}
	}
}

func TestChatInteractiveEOF(t *testing.T) {
	a, _ := testAsker()
	var out strings.Builder
	if err := Chat(t.Context(), strings.NewReader(""), &out, alice, a, true); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := "kueuebot chat: ask why a job is waiting. Type help for examples, quit to leave.\nyou> \n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestChatStopsWhenContextEnds(t *testing.T) {
	a, _ := testAsker()
	pr, pw := io.Pipe() // never written: a terminal nobody types into
	defer pw.Close()
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- Chat(ctx, pr, io.Discard, alice, a, true) }()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Chat = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Chat did not return after the context ended")
	}
}

type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestChatErrors(t *testing.T) {
	tests := []struct {
		name string
		in   io.Reader
		out  io.Writer
		want error
	}{
		{"write error", strings.NewReader("train-7\n"), failWriter{}, errDiskFull},
		{"line too long", strings.NewReader(strings.Repeat("x", maxLine+1)), io.Discard, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := testAsker()
			err := Chat(t.Context(), tt.in, tt.out, alice, a, false)
			if err == nil {
				t.Fatal("Chat succeeded, want an error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Chat = %v, want %v", err, tt.want)
			}
		})
	}
}
