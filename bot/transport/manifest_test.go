package transport

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
	"sigs.k8s.io/yaml"
)

// TestManifest: the app manifest shipped in deploy/slack parses strictly
// into slack-go's Manifest, and declares exactly the events and scopes the
// bot handles, with Socket Mode on, the /kueue command, interactivity (the
// buttons and the shortcut), the message shortcut the decoder answers and
// the Home tab.
func TestManifest(t *testing.T) {
	data, err := os.ReadFile("../../deploy/slack/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var m slack.Manifest
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("manifest does not parse strictly: %v", err)
	}
	if !m.Settings.SocketModeEnabled {
		t.Error("Socket Mode must be enabled: kueuebot serve connects out")
	}
	if m.Settings.EventSubscriptions == nil {
		t.Fatal("no event subscriptions")
	}
	sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
	if diff := cmp.Diff(sorted(HandledEvents), sorted(m.Settings.EventSubscriptions.BotEvents)); diff != "" {
		t.Errorf("events (-handled +manifest):\n%s", diff)
	}
	if diff := cmp.Diff(sorted(RequiredScopes), sorted(m.OAuthConfig.Scopes.Bot)); diff != "" {
		t.Errorf("scopes (-needed +manifest):\n%s", diff)
	}
	if len(m.Features.SlashCommands) != 1 || m.Features.SlashCommands[0].Command != "/kueue" {
		t.Errorf("want the /kueue slash command, got %+v", m.Features.SlashCommands)
	}
	if m.Settings.Interactivity == nil || !m.Settings.Interactivity.IsEnabled {
		t.Error("interactivity must be on: buttons, the picker and the shortcut need it")
	}
	var shortcuts []string
	for _, sc := range m.Features.Shortcuts {
		if sc.Type != slack.MessageShortcut {
			t.Errorf("shortcut %s is a %s shortcut, want a message shortcut", sc.CallbackID, sc.Type)
		}
		shortcuts = append(shortcuts, sc.CallbackID)
	}
	if diff := cmp.Diff([]string{ShortcutWhy, ShortcutFit}, shortcuts); diff != "" {
		t.Errorf("message shortcuts (-handled +manifest):\n%s", diff)
	}
	if !m.Features.AppHome.HomeTabEnabled || !slices.Contains(m.Settings.EventSubscriptions.BotEvents, "app_home_opened") {
		t.Error("the Home tab must be enabled and app_home_opened subscribed")
	}
	if !m.Features.AppHome.MessagesTabEnabled {
		t.Error("the Messages tab must be on: direct messages and the DM fallback use it")
	}
}
