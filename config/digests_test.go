package config

import (
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/i18n"
)

func exampleDigest(t *testing.T) *Config {
	t.Helper()
	c, err := Parse(Example())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Digests) != 1 {
		t.Fatalf("the example has %d digests, want 1", len(c.Digests))
	}
	return c
}

func TestDigestsExample(t *testing.T) {
	c := exampleDigest(t)
	d, ok := c.DigestNamed("team-a-daily")
	if !ok {
		t.Fatal("team-a-daily not found")
	}
	loc, err := d.Location()
	if err != nil || loc.String() != "Europe/Paris" {
		t.Fatalf("location = %v, %v", loc, err)
	}
	s, err := d.ParseSchedule()
	if err != nil {
		t.Fatal(err)
	}
	// Friday 2026-11-27 10:00 in Paris: next run Monday 09:00 Paris time.
	from := time.Date(2026, 11, 27, 10, 0, 0, 0, loc)
	if got, want := s.Next(from), time.Date(2026, 11, 30, 9, 0, 0, 0, loc); !got.Equal(want) {
		t.Errorf("next run = %v, want %v", got, want)
	}
	if d.LongWaitOrDefault() != 24*time.Hour || d.TopNOrDefault() != 5 || d.MaxLatenessOrDefault() != 6*time.Hour {
		t.Errorf("thresholds = %v %v %v", d.LongWaitOrDefault(), d.TopNOrDefault(), d.MaxLatenessOrDefault())
	}
	zero := Digest{}
	if zero.LongWaitOrDefault() != DefaultDigestLongWait || zero.TopNOrDefault() != DefaultDigestTopN || zero.MaxLatenessOrDefault() != DefaultDigestMaxLateness {
		t.Error("zero thresholds do not take the defaults")
	}
	if loc, _ := zero.Location(); loc != time.UTC {
		t.Errorf("empty timeZone = %v, want UTC", loc)
	}
}

func TestDigestsValidation(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Digest)
		want   []string
	}{
		{"name", func(d *Digest) { d.Name = "Team A" }, []string{"digests[0].name", "lower-case"}},
		{"channel", func(d *Digest) { d.Channel = "#platform" }, []string{"digests[0].channel"}},
		{"time zone", func(d *Digest) { d.TimeZone = "Mars/Olympus" }, []string{"digests[0].timeZone", "IANA"}},
		{"cron fields", func(d *Digest) { d.Schedule = "0 9 * *" }, []string{"digests[0].schedule", "five-field"}},
		{"cron range", func(d *Digest) { d.Schedule = "0 25 * * *" }, []string{"digests[0].schedule"}},
		{"six fields", func(d *Digest) { d.Schedule = "0 0 9 * * *" }, []string{"digests[0].schedule"}},
		{"covers nothing", func(d *Digest) { d.Namespaces = nil }, []string{"digests[0]", "covers nothing"}},
		{"local queue", func(d *Digest) { d.LocalQueues = []string{"user-queue"} }, []string{"digests[0].localQueues[0]", "NAMESPACE/NAME"}},
		{"cluster queue", func(d *Digest) { d.ClusterQueues = []string{"GPU!"} }, []string{"digests[0].clusterQueues[0]"}},
		{"user", func(d *Digest) { d.User = "" }, []string{"digests[0].user", "required"}},
		{"system user", func(d *Digest) { d.User = "system:admin" }, []string{"digests[0].user", "reserved"}},
		{"system group", func(d *Digest) { d.Groups = []string{"system:masters"} }, []string{"digests[0].groups[0]"}},
		{"long wait", func(d *Digest) { d.LongWait = -time.Hour }, []string{"digests[0].longWait"}},
		{"top", func(d *Digest) { d.TopN = 500 }, []string{"digests[0].topN"}},
		{"lateness", func(d *Digest) { d.MaxLateness = 30 * 24 * time.Hour }, []string{"digests[0].maxLateness"}},
		{"language", func(d *Digest) { d.Language = "tlh" }, []string{"digests[0].language", "want en, fr, ja or zh"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := exampleDigest(t)
			tc.mutate(&c.Digests[0])
			err := c.Validate()
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	c := exampleDigest(t)
	c.Digests = append(c.Digests, c.Digests[0])
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "digests[1].name") {
		t.Errorf("a duplicate name: %v", err)
	}
}

func TestDigestsFromYAML(t *testing.T) {
	c, err := Parse([]byte(`
digests:
  - name: gpu
    channel: C00GPU0001
    schedule: "30 8 * * *"
    clusterQueues: [gpu]
    localQueues: [team-a/gpu]
    user: digest-gpu
    groups: [gpu-viewers]
    longWait: 2h
    topN: 3
    maxLateness: 1h
`))
	if err != nil {
		t.Fatal(err)
	}
	d := c.Digests[0]
	if d.Name != "gpu" || d.ClusterQueues[0] != "gpu" || d.LocalQueues[0] != "team-a/gpu" || d.LongWait != 2*time.Hour || d.TopN != 3 || d.MaxLateness != time.Hour {
		t.Errorf("decoded %+v", d)
	}
	if _, err := Parse([]byte("digests:\n  - name: x\n    schedul: \"0 9 * * *\"\n")); err == nil || !strings.Contains(err.Error(), "schedul") {
		t.Errorf("an unknown key must fail naming it: %v", err)
	}
}

// Schedules follow the digest's time zone across daylight-saving changes:
// a time that does not exist is skipped, one that happens twice fires once.
func TestDigestScheduleDST(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	runs := func(spec, tz string, from time.Time, n int) []string {
		t.Helper()
		d := Digest{Schedule: spec, TimeZone: tz}
		s, err := d.ParseSchedule()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for x := from; len(out) < n; {
			x = s.Next(x)
			out = append(out, x.UTC().Format("Jan 2 15:04Z"))
		}
		return out
	}
	tests := []struct {
		name     string
		spec, tz string
		from     time.Time
		want     []string
	}{
		{"09:00 Paris keeps its local time across spring forward", "0 9 * * *", "Europe/Paris", time.Date(2026, 3, 28, 12, 0, 0, 0, paris),
			[]string{"Mar 29 07:00Z", "Mar 30 07:00Z"}},
		{"02:30 does not exist on spring forward: skipped", "30 2 * * *", "Europe/Paris", time.Date(2026, 3, 28, 12, 0, 0, 0, paris),
			[]string{"Mar 30 00:30Z", "Mar 31 00:30Z"}},
		{"02:30 happens twice on fall back: once", "30 2 * * *", "Europe/Paris", time.Date(2026, 10, 24, 12, 0, 0, 0, paris),
			[]string{"Oct 25 00:30Z", "Oct 26 01:30Z"}},
		{"every half hour through fall back: the repeated hour once", "*/30 1-3 * * *", "Europe/Paris", time.Date(2026, 10, 24, 12, 0, 0, 0, paris),
			[]string{"Oct 24 23:00Z", "Oct 24 23:30Z", "Oct 25 00:00Z", "Oct 25 00:30Z", "Oct 25 02:00Z", "Oct 25 02:30Z", "Oct 26 00:00Z"}},
		{"New York weekdays, over the weekend DST starts", "0 9 * * 1-5", "America/New_York", time.Date(2026, 3, 6, 12, 0, 0, 0, time.UTC),
			[]string{"Mar 6 14:00Z", "Mar 9 13:00Z"}},
		{"UTC by default", "0 9 * * *", "", time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC),
			[]string{"Mar 29 09:00Z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runs(tc.spec, tc.tz, tc.from, len(tc.want))
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("runs = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestChannelLanguages: digests[].language and triage.language name a
// channel's language, else language.default; a language kueuebot does not
// answer in is refused.
func TestChannelLanguages(t *testing.T) {
	c := exampleDigest(t)
	c.Language.Default = "fr"
	if got := c.LangOr(c.Digests[0].Language); got != i18n.French {
		t.Errorf("a digest without a language: %v, want language.default", got)
	}
	c.Digests[0].Language = "ja-JP"
	c.Triage.Language = "zh"
	if got := c.LangOr(c.Digests[0].Language); got != i18n.Japanese {
		t.Errorf("digest language: %v", got)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.Triage.Language = "tlh"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "triage.language") {
		t.Errorf("a bad triage.language: %v", err)
	}
}
