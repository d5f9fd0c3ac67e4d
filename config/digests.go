package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Digest is one scheduled pending-queue digest, posted to a channel on a
// cron schedule: totals, each queue's pending count, longest wait and usage
// against nominal quota, the pending workloads grouped by verdict, and what
// needs someone to act, with the trend since the previous one. One replica
// posts it (leader election on the Lease kueuebot-leader in the bot's
// namespace), exactly once per scheduled time (a run key recorded in the
// ConfigMap kueuebot-state before posting).
//
// The digest reads the cluster as its own Kubernetes identity (user and
// groups, impersonated, never the bot's), and everyone in the channel sees
// what that identity may read: give it no more than the channel's members
// may see, e.g. one digest identity per team channel, bound to the team's
// namespaces.
type Digest struct {
	// Name names the digest in logs, run keys and `kueuebot digest --name`:
	// lower-case letters, digits and '-', unique.
	Name string `mapstructure:"name"`
	// Channel is the Slack channel ID (C... or G...) it is posted to; the
	// bot must be a member.
	Channel string `mapstructure:"channel"`
	// Schedule is a five-field cron expression (minute hour day-of-month
	// month day-of-week), e.g. "0 9 * * 1-5" for 09:00 on weekdays, in
	// TimeZone. On a daylight-saving change, a time that does not exist is
	// skipped and a time that happens twice is posted once.
	Schedule string `mapstructure:"schedule"`
	// TimeZone is the IANA time zone of Schedule, e.g. "Europe/Paris";
	// empty means UTC.
	TimeZone string `mapstructure:"timeZone"`
	// Namespaces are the namespaces the digest covers, and where it lists,
	// one namespace at a time (without them it lists cluster-wide, which
	// its identity must be allowed to). Namespaces, LocalQueues and
	// ClusterQueues each narrow the digest: a workload is in it when it is
	// in one of the namespaces, one of the LocalQueues and one of the
	// ClusterQueues, of those set. At least one of the three is required.
	Namespaces []string `mapstructure:"namespaces"`
	// LocalQueues names each local queue the digest covers, as
	// "namespace/name".
	LocalQueues []string `mapstructure:"localQueues"`
	// ClusterQueues names each cluster queue the digest covers.
	ClusterQueues []string `mapstructure:"clusterQueues"`
	// User is the Kubernetes user the digest reads as (impersonated like a
	// caller; a digest never reads as the bot).
	User string `mapstructure:"user"`
	// Groups are the Kubernetes groups the digest reads as.
	Groups []string `mapstructure:"groups"`
	// LongWait is how long a pending workload waits before it counts as a
	// long wait; 0 means 24h.
	LongWait time.Duration `mapstructure:"longWait"`
	// StuckAfter is how long an admitted workload's pods may be missing or
	// not running (refused by a ResourceQuota, unschedulable, failing to
	// pull their image) before the digest names it as stuck after
	// admission: it holds quota others wait for. 0 means 30m.
	StuckAfter time.Duration `mapstructure:"stuckAfter"`
	// TopN is how many workloads each list of the channel message names
	// (the thread has more); 0 means 5.
	TopN int `mapstructure:"topN"`
	// Cluster is the configured cluster (clusters[].name) the digest reads;
	// empty means the home cluster (kube). A digest covers one cluster, and
	// User and Groups are its identity there: a team with queues in several
	// clusters configures one digest per cluster (e.g. team-a-west and
	// team-a-east, to the same channel), each with its own trend.
	Cluster string `mapstructure:"cluster"`
	// MaxLateness is how late a run may still be posted when no replica
	// was up at its time: it is posted once, late, with a note, while
	// younger than this, and skipped after; 0 means 6h.
	MaxLateness time.Duration `mapstructure:"maxLateness"`
	// Language is the language the digest is posted in (its channel's
	// language): en, fr, ja or zh (a BCP 47 tag or POSIX locale such as
	// "ja-JP" is read for its language); empty means language.default.
	// Verdict codes, causes, names and commands stay as they are.
	Language string `mapstructure:"language"`
}

// Digest defaults, for the zero values of Digest's optional keys.
const (
	DefaultDigestLongWait    = 24 * time.Hour
	DefaultDigestStuckAfter  = 30 * time.Minute
	DefaultDigestTopN        = 5
	DefaultDigestMaxLateness = 6 * time.Hour
)

// Limits of a digest's keys.
const (
	maxDigestTopN     = 50
	maxDigestLongWait = 30 * 24 * time.Hour
	maxDigestLateness = 7 * 24 * time.Hour
)

var (
	reDigestName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	// reObjectName is a Kubernetes object name (DNS subdomain).
	reObjectName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
)

// cronParser reads the five-field cron expressions of Schedule.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// Location returns the digest's time zone.
func (d *Digest) Location() (*time.Location, error) {
	if d.TimeZone == "" {
		return time.UTC, nil
	}
	return time.LoadLocation(d.TimeZone)
}

// ParseSchedule returns the digest's schedule in its time zone. On a
// daylight-saving change a wall-clock time that does not exist is skipped
// (as robfig/cron does), and one that happens twice fires once, at its
// first occurrence.
func (d *Digest) ParseSchedule() (cron.Schedule, error) {
	loc, err := d.Location()
	if err != nil {
		return nil, err
	}
	s, err := cronParser.Parse(strings.TrimSpace(d.Schedule))
	if err != nil {
		return nil, err
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return s, nil
	}
	spec.Location = loc
	return onceSchedule{spec: spec, loc: loc}, nil
}

// onceSchedule fires a repeated wall-clock time once.
type onceSchedule struct {
	spec *cron.SpecSchedule
	loc  *time.Location
}

// Next implements cron.Schedule.
func (o onceSchedule) Next(t time.Time) time.Time {
	for range 4 {
		n := o.spec.Next(t)
		if n.IsZero() || !repeatedWallClock(n, o.loc) {
			return n
		}
		t = n
	}
	return o.spec.Next(t)
}

// repeatedWallClock reports whether the wall-clock time of n in loc was
// already shown by an earlier instant (the second pass through the hour a
// daylight-saving change repeats; shifts of 30 minutes to 2 hours exist).
func repeatedWallClock(n time.Time, loc *time.Location) bool {
	wall := n.In(loc)
	for _, shift := range []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour} {
		e := n.Add(-shift).In(loc)
		if e.Hour() == wall.Hour() && e.Minute() == wall.Minute() && e.Day() == wall.Day() {
			return true
		}
	}
	return false
}

// LongWaitOrDefault, StuckAfterOrDefault, TopNOrDefault and
// MaxLatenessOrDefault apply the defaults to the optional keys.
func (d *Digest) LongWaitOrDefault() time.Duration {
	if d.LongWait <= 0 {
		return DefaultDigestLongWait
	}
	return d.LongWait
}

// StuckAfterOrDefault is StuckAfter, or its default.
func (d *Digest) StuckAfterOrDefault() time.Duration {
	if d.StuckAfter <= 0 {
		return DefaultDigestStuckAfter
	}
	return d.StuckAfter
}

// TopNOrDefault is TopN, or its default.
func (d *Digest) TopNOrDefault() int {
	if d.TopN <= 0 {
		return DefaultDigestTopN
	}
	return d.TopN
}

// MaxLatenessOrDefault is MaxLateness, or its default.
func (d *Digest) MaxLatenessOrDefault() time.Duration {
	if d.MaxLateness <= 0 {
		return DefaultDigestMaxLateness
	}
	return d.MaxLateness
}

// DigestNamed returns the digest called name.
func (c *Config) DigestNamed(name string) (*Digest, bool) {
	for i := range c.Digests {
		if c.Digests[i].Name == name {
			return &c.Digests[i], true
		}
	}
	return nil, false
}

func (c *Config) validateDigests(errs *errList) {
	var names []string
	for i := range c.Digests {
		d := &c.Digests[i]
		key := fmt.Sprintf("digests[%d]", i)
		switch {
		case !reDigestName.MatchString(d.Name):
			errs.addf(key+".name", "got %q, want lower-case letters, digits and '-' (at most 63), e.g. \"team-a-daily\"", d.Name)
		case slices.Contains(names, d.Name):
			errs.addf(key+".name", "%q is the name of another digest", d.Name)
		}
		names = append(names, d.Name)
		if !reChannelID.MatchString(d.Channel) {
			errs.addf(key+".channel", "got %q, want a Slack channel ID such as C012AB3CD", d.Channel)
		}
		if _, err := d.Location(); err != nil {
			errs.addf(key+".timeZone", "got %q, want an IANA time zone such as \"Europe/Paris\" or \"America/New_York\" (%v)", d.TimeZone, err)
		} else if _, err := d.ParseSchedule(); err != nil {
			errs.addf(key+".schedule", "got %q, want a five-field cron expression such as \"0 9 * * 1-5\" (%v)", d.Schedule, err)
		}
		if len(d.Namespaces)+len(d.LocalQueues)+len(d.ClusterQueues) == 0 {
			errs.addf(key, "covers nothing: set namespaces, localQueues and/or clusterQueues")
		}
		checkNamespaces(errs, key+".namespaces", d.Namespaces)
		for j, lq := range d.LocalQueues {
			ns, name, ok := strings.Cut(lq, "/")
			if !ok || !reNamespace.MatchString(ns) || !reObjectName.MatchString(name) {
				errs.addf(fmt.Sprintf("%s.localQueues[%d]", key, j), "got %q, want NAMESPACE/NAME", lq)
			}
		}
		for j, cq := range d.ClusterQueues {
			if !reObjectName.MatchString(cq) {
				errs.addf(fmt.Sprintf("%s.clusterQueues[%d]", key, j), "got %q, want a ClusterQueue name", cq)
			}
		}
		if d.Cluster != "" {
			if _, ok := c.ClusterNamed(d.Cluster); !ok {
				errs.addf(key+".cluster", "got %q, want the name of one of clusters[] (%s), or empty for the home cluster", d.Cluster, strings.Join(c.ClusterNames(), ", "))
			}
		}
		checkK8sName(errs, key+".user", d.User, true)
		checkGroups(errs, key+".groups", d.Groups)
		if d.LongWait < 0 || d.LongWait > maxDigestLongWait {
			errs.addf(key+".longWait", "got %s, want a duration up to %s, e.g. \"24h\" (0: the default)", d.LongWait, maxDigestLongWait)
		}
		if d.StuckAfter < 0 || d.StuckAfter > maxDigestLongWait {
			errs.addf(key+".stuckAfter", "got %s, want a duration up to %s, e.g. \"30m\" (0: the default)", d.StuckAfter, maxDigestLongWait)
		}
		if d.TopN < 0 || d.TopN > maxDigestTopN {
			errs.addf(key+".topN", "got %d, want 1 to %d (0: the default)", d.TopN, maxDigestTopN)
		}
		checkLanguage(errs, key+".language", d.Language)
		if d.MaxLateness < 0 || d.MaxLateness > maxDigestLateness {
			errs.addf(key+".maxLateness", "got %s, want a duration up to %s, e.g. \"6h\" (0: the default)", d.MaxLateness, maxDigestLateness)
		}
	}
}
