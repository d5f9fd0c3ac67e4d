package config

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// EnvPrefix prefixes every environment override: KUEUEBOT_SLACK_BOTTOKEN
// overrides slack.botToken.
const EnvPrefix = "KUEUEBOT"

// Config is kueuebot's whole configuration.
type Config struct {
	Slack    Slack    `mapstructure:"slack"`
	Kube     Kube     `mapstructure:"kube"`
	Identity Identity `mapstructure:"identity"`
	// Digests are the scheduled pending-queue digests (see Digest).
	Digests []Digest `mapstructure:"digests"`
	Triage  Triage   `mapstructure:"triage"`
	// Notify configures "Tell me when it starts" (see Notify).
	Notify Notify `mapstructure:"notify"`
	Ops    Ops    `mapstructure:"ops"`
	// Clusters are the clusters questions are answered in (see Cluster);
	// empty: the one cluster of kube.
	Clusters []Cluster `mapstructure:"clusters"`
	// Language is the replies' default language (see Language).
	Language Language `mapstructure:"language"`
}

// Slack mode values.
const (
	// ModeSocket connects out to Slack over Socket Mode (needs appToken).
	ModeSocket = "socket"
	// ModeHTTP serves the signed Events API on listenAddr (needs signingSecret).
	ModeHTTP = "http"
)

// Slack configures the Slack connection.
type Slack struct {
	// BotToken is the bot token (xoxb-...), for the Web API.
	BotToken Secret `mapstructure:"botToken"`
	// AppToken is the app-level token (xapp-...), for Socket Mode.
	AppToken Secret `mapstructure:"appToken"`
	// SigningSecret verifies requests in HTTP mode.
	SigningSecret Secret `mapstructure:"signingSecret"`
	// Mode is "socket" (default) or "http".
	Mode string `mapstructure:"mode"`
	// ListenAddr is where HTTP mode listens, e.g. ":3000".
	ListenAddr string `mapstructure:"listenAddr"`
	// APIURL overrides the Slack Web API base URL (for a proxy or a test
	// stand-in); empty means Slack's own. It must be https unless it is a
	// loopback address: tokens travel in every call.
	APIURL string `mapstructure:"apiURL"`
	// Replies says who sees answers to questions asked in channels:
	// "ephemeral" (default: the asker only, who can share them) or
	// "thread" (everyone, in the thread). DMs are always normal messages.
	Replies string `mapstructure:"replies"`
}

// Slack replies values.
const (
	// RepliesEphemeral shows answers in channels to the asker only.
	RepliesEphemeral = "ephemeral"
	// RepliesThread posts answers in the thread, for the whole channel.
	RepliesThread = "thread"
)

// ClusterScopedReads says whose identity reads cluster-scoped quota
// objects (ClusterQueues, ResourceFlavors, Cohorts).
type ClusterScopedReads string

// ClusterScopedReads values.
const (
	// ClusterScopedCaller reads them as the caller (default): a caller
	// without access sees a gap in the report instead of quota figures.
	ClusterScopedCaller ClusterScopedReads = "caller"
	// ClusterScopedBot reads them with the bot's own identity, which then
	// needs get/list on them; namespaced data is still read as the caller.
	ClusterScopedBot ClusterScopedReads = "bot"
)

// Kube configures access to the cluster.
type Kube struct {
	// Kubeconfig is a kubeconfig path; empty means in-cluster config.
	Kubeconfig string `mapstructure:"kubeconfig"`
	// Context is the kubeconfig context; empty means the current one.
	Context string `mapstructure:"context"`
	// RequestTimeout bounds each API request.
	RequestTimeout time.Duration `mapstructure:"requestTimeout"`
	// ClusterScopedReads is "caller" (default) or "bot".
	ClusterScopedReads ClusterScopedReads `mapstructure:"clusterScopedReads"`
	// MaxNamespaces caps namespace discovery for one question.
	MaxNamespaces int `mapstructure:"maxNamespaces"`
	// DiscoveryConcurrency caps concurrent access reviews during namespace
	// discovery.
	DiscoveryConcurrency int `mapstructure:"discoveryConcurrency"`
	// KueueConfig lets the bot read Kueue's own Configuration (opt-in).
	KueueConfig KueueConfig `mapstructure:"kueueConfig"`
}

// KueueConfig locates Kueue's manager ConfigMap. When ConfigMap is set, the
// bot reads it with its own identity (a Role in Namespace allows get on that
// one ConfigMap) for a job that has no Workload, to say for certain that
// Kueue does not manage it: its integration is not enabled, or its namespace
// is outside managedJobsNamespaceSelector. Off when ConfigMap is empty.
type KueueConfig struct {
	// Namespace is Kueue's namespace.
	Namespace string `mapstructure:"namespace"`
	// ConfigMap is the manager ConfigMap's name; empty turns the read off.
	ConfigMap string `mapstructure:"configMap"`
	// Key is the ConfigMap key holding the Configuration.
	Key string `mapstructure:"key"`
}

// Enabled reports whether the bot reads Kueue's Configuration.
func (k KueueConfig) Enabled() bool { return k.ConfigMap != "" }

// Identity configures how a Slack user becomes a Kubernetes identity.
// Everything is keyed on immutable Slack IDs, never on display names.
// Mappings are lists, not maps, because the config loader folds map keys to
// lower case and Slack IDs are upper case.
type Identity struct {
	// Users maps individual Slack users to Kubernetes users.
	Users []UserMapping `mapstructure:"users"`
	// Email maps a user's verified Slack email to a Kubernetes user.
	Email EmailMapping `mapstructure:"email"`
	// UserGroups adds Kubernetes groups (and namespaces) to members of
	// Slack user groups. A group alone never grants an identity: the user
	// still needs a user name from Users or Email.
	UserGroups []UserGroupMapping `mapstructure:"userGroups"`
	// RefusalContact is who a refused user should ask for access, e.g.
	// "#platform-help"; it appears in the refusal message.
	RefusalContact string `mapstructure:"refusalContact"`
	// CacheTTL is how long a resolution (and a user group's members) is
	// cached.
	CacheTTL time.Duration `mapstructure:"cacheTTL"`
}

// UserMapping maps one Slack user to a Kubernetes identity.
type UserMapping struct {
	// SlackUserID is the immutable Slack user ID (U... or W...).
	SlackUserID string `mapstructure:"slackUserID"`
	// TeamID is the workspace ID (T...); required unless EnterpriseID is set.
	TeamID string `mapstructure:"teamID"`
	// EnterpriseID is the Enterprise Grid org ID (E...), optional.
	EnterpriseID string `mapstructure:"enterpriseID"`
	// User is the Kubernetes user name to impersonate.
	User string `mapstructure:"user"`
	// Groups are the Kubernetes groups to impersonate.
	Groups []string `mapstructure:"groups"`
	// Namespaces are default namespaces, in preference order.
	Namespaces []string `mapstructure:"namespaces"`
}

// EmailMapping maps a Slack user's email (users.info with the
// users:read.email scope) to a Kubernetes user name.
type EmailMapping struct {
	// Enabled turns email mapping on.
	Enabled bool `mapstructure:"enabled"`
	// UserTemplate is a text/template over EmailTemplateData giving the
	// Kubernetes user name, e.g. "{{.Email}}" or "oidc:{{.Email}}".
	UserTemplate string `mapstructure:"userTemplate"`
	// AllowedDomains are the email domains accepted (exact match, case
	// insensitive). Required when Enabled.
	AllowedDomains []string `mapstructure:"allowedDomains"`
	// RequireConfirmed refuses users whose email Slack has not confirmed
	// (default true).
	RequireConfirmed bool `mapstructure:"requireConfirmed"`
	// TeamIDs, when set, restricts email mapping to these workspaces.
	TeamIDs []string `mapstructure:"teamIDs"`
	// Groups are Kubernetes groups given to every email-mapped user.
	Groups []string `mapstructure:"groups"`
	// Namespaces are default namespaces for every email-mapped user.
	Namespaces []string `mapstructure:"namespaces"`
}

// EmailTemplateData is what EmailMapping.UserTemplate sees.
type EmailTemplateData struct {
	// Email is the address, lower-cased.
	Email string
	// LocalPart is the part before "@".
	LocalPart string
	// Domain is the part after "@".
	Domain string
	// UserID is the Slack user ID.
	UserID string
	// TeamID is the Slack workspace ID.
	TeamID string
}

// UserGroupMapping gives members of one Slack user group Kubernetes groups.
type UserGroupMapping struct {
	// SlackGroupID is the immutable user group ID (S...).
	SlackGroupID string `mapstructure:"slackGroupID"`
	// TeamID is passed to usergroups.users.list on Enterprise Grid.
	TeamID string `mapstructure:"teamID"`
	// Groups are the Kubernetes groups members get.
	Groups []string `mapstructure:"groups"`
	// Namespaces are default namespaces members get.
	Namespaces []string `mapstructure:"namespaces"`
}

//go:embed example.yaml
var example []byte

// Example returns the embedded example configuration (config/example.yaml).
// It validates; docs and tests use it.
func Example() []byte { return bytes.Clone(example) }

// Default returns the configuration with every default applied.
func Default() *Config {
	return &Config{
		Slack: Slack{Mode: ModeSocket, ListenAddr: ":3000", Replies: RepliesEphemeral},
		Kube: Kube{
			RequestTimeout:       10 * time.Second,
			ClusterScopedReads:   ClusterScopedCaller,
			MaxNamespaces:        10,
			DiscoveryConcurrency: 4,
			KueueConfig:          KueueConfig{Namespace: "kueue-system", Key: "controller_manager_config.yaml"},
		},
		Identity: Identity{
			Users: []UserMapping{},
			Email: EmailMapping{
				UserTemplate:     "{{.Email}}",
				AllowedDomains:   []string{},
				RequireConfirmed: true,
				TeamIDs:          []string{},
				Groups:           []string{},
				Namespaces:       []string{},
			},
			UserGroups:     []UserGroupMapping{},
			RefusalContact: "your Kubernetes platform team",
			CacheTTL:       5 * time.Minute,
		},
		Digests:  []Digest{},
		Clusters: []Cluster{},
		Triage:   Triage{Channels: []string{}, Patterns: DefaultTriagePatterns(), Detail: TriageSummary, Window: DefaultTriageWindow},
		Notify:   Notify{MaxPerUser: DefaultNotifyMaxPerUser, ExpireAfter: DefaultNotifyExpireAfter},
		Ops: Ops{
			ListenAddr: DefaultOpsListenAddr, ShutdownGrace: DefaultShutdownGrace,
			Workers: DefaultWorkers, QueueSize: DefaultQueueSize, AnswerTimeout: DefaultAnswerTimeout,
		},
	}
}

// Load reads the YAML file at path (empty: defaults only), applies
// KUEUEBOT_* environment overrides, decodes strictly and validates.
func Load(path string) (*Config, error) {
	var data []byte
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		data = b
	}
	return Parse(data)
}

// Parse is Load for YAML already in memory (nil or empty: defaults only).
func Parse(data []byte) (*Config, error) {
	c, err := decode(data)
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func decode(data []byte) (*Config, error) {
	v := viper.NewWithOptions(viper.EnvKeyReplacer(strings.NewReplacer(".", "_")))
	v.SetConfigType("yaml")
	v.SetEnvPrefix(EnvPrefix)
	v.AutomaticEnv()
	if err := setDefaults(v, "", reflect.ValueOf(*Default())); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("config: parse YAML: %w", err)
		}
	}
	c := &Config{}
	hook := mapstructure.ComposeDecodeHookFunc(
		mapstructure.TextUnmarshallerHookFunc(),
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
	)
	if err := v.UnmarshalExact(c, viper.DecodeHook(hook)); err != nil {
		return nil, fmt.Errorf("config: %w (check the key names against config/example.yaml)", err)
	}
	return c, nil
}

// setDefaults registers every leaf of the default Config with viper, so
// each key has a default and AutomaticEnv can override it.
func setDefaults(v *viper.Viper, prefix string, val reflect.Value) error {
	t := val.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("mapstructure")
		if tag == "" {
			return fmt.Errorf("config: field %s%s has no mapstructure tag", prefix, f.Name)
		}
		key := prefix + tag
		fv := val.Field(i)
		if fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeFor[Secret]() {
			if err := setDefaults(v, key+".", fv); err != nil {
				return err
			}
			continue
		}
		if fv.Type() == reflect.TypeFor[Secret]() {
			v.SetDefault(key, "")
			continue
		}
		if fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String && fv.Len() == 0 {
			v.SetDefault(key, []string{})
			continue
		}
		v.SetDefault(key, fv.Interface())
	}
	return nil
}

// errList collects validation problems, each naming the key.
type errList []error

func (l *errList) addf(key, format string, args ...any) {
	*l = append(*l, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
}

func (l errList) err() error {
	if len(l) == 0 {
		return nil
	}
	return fmt.Errorf("config: invalid configuration:\n%w", errors.Join(l...))
}
