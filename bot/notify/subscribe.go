package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/slack-go/slack"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/kueuebot/kueuebot/bot/blocks"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

// answer is a short reply for the user who asked.
func answer(header, body string) blocks.Message { return blocks.Notice(header, body) }

// listSep joins names: ", ", Japanese and Chinese "、".
func listSep(l i18n.Lang) string {
	if l == i18n.Japanese || l == i18n.Chinese {
		return "、"
	}
	return ", "
}

func ref(r blocks.JobRef) string {
	return job(&Subscription{Cluster: r.Cluster, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name})
}

// Subscribe subscribes the Slack user u to the job ref, for the
// "Tell me when it starts" button (ActionNotify) and `/kueue notify JOB`.
// It reads the job as u (who must be able to read it, and to list and
// watch Workloads in its namespace), posts the confirmation DM (the
// channel of the later messages), and records the subscription; what is
// already true of the job (e.g. admitted) is not told again. The message
// returned is the reply to show u where they asked (ephemeral): the
// confirmation, or why not (refused, no such job, the limit of
// notify.maxPerUser reached, already subscribed). err is a failure (the
// cluster or Slack), for the bot's usual failure notice.
func (n *Notifier) Subscribe(ctx context.Context, u rbac.SlackUser, r blocks.JobRef) (blocks.Message, error) {
	l := n.lang(ctx, u.ID)
	if err := r.Validate(); err != nil {
		return answer("", tr(l, "notify.reply.invalid", i18n.Verbatim(blocks.Line(err.Error())))), nil
	}
	// The job's cluster: the subscriber is resolved with its identity
	// mapping and read there.
	resolve, _, err := n.access(r.Cluster)
	if err != nil {
		return blocks.Message{}, &NoClusterError{Cluster: r.Cluster}
	}
	ident, err := resolve.Resolve(ctx, u)
	if ref, ok := rbac.IsRefused(err); ok {
		return answer("", blocks.Line(ref.UserMessage())), nil
	}
	if err != nil {
		return blocks.Message{}, err
	}
	cl, err := n.clientsFor(r.Cluster, ident)
	if err != nil {
		return blocks.Message{}, err
	}
	s := Subscription{
		ID: newID(), User: u.ID, Team: u.TeamID, Enterprise: u.EnterpriseID,
		Cluster: r.Cluster, Namespace: r.Namespace, Kind: r.Kind, Name: r.Name,
	}
	var wl *kueue.Workload
	if r.Kind == kueueWorkloadKind {
		wl, err = cl.Kueue.KueueV1beta2().Workloads(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return answer("", tr(l, "notify.reply.noJob", i18n.Verbatim(ref(r)))), nil
		}
	} else {
		obj, k, jerr := readJob(ctx, cl, r.Namespace, r.Kind, r.Name)
		err = jerr
		if err == nil && obj == nil {
			return answer("", tr(l, "notify.reply.noJob", i18n.Verbatim(ref(r)))), nil
		}
		if err == nil {
			s.JobUID = string(obj.GetUID())
			if k.PodSelector != nil {
				s.PodSelector = k.PodSelector(obj)
			}
			wl, err = readWorkload(ctx, cl, &s)
		}
	}
	if apierrors.IsForbidden(err) {
		return answer("", tr(l, "notify.reply.forbidden", i18n.Verbatim(ref(r)))), nil
	}
	if err != nil {
		return blocks.Message{}, fmt.Errorf("reading %s as %s: %w", r, ident.User, err)
	}
	if ok, err := canWatch(ctx, cl, r.Namespace); err != nil {
		return blocks.Message{}, err
	} else if !ok {
		return answer("", tr(l, "notify.reply.cannotWatch", i18n.Verbatim(ref(r)), i18n.Verbatim(blocks.Code(r.Namespace)))), nil
	}
	now := n.Clock.Now()
	s.Created, s.Expires = now, now.Add(n.ExpireAfter)
	for _, e := range Observe(wl, Pods{}) {
		s.Seen = remember(s.Seen, e.Key)
	}
	if msg, stop := n.refuse(ctx, l, u.ID, r); stop {
		return msg, nil
	}
	// The confirmation DM: its channel is where the messages go.
	m := confirmation(l, &s, DescribeMsg(wl))
	ch, _, err := n.Slack.PostMessageContext(ctx, u.ID, slack.MsgOptionText(m.Text, false), slack.MsgOptionBlocks(m.Blocks...),
		slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl())
	if err != nil {
		return blocks.Message{}, fmt.Errorf("notify: direct message to %s: %w", u.ID, err)
	}
	s.Channel = ch
	var limitMsg blocks.Message
	err = n.update(ctx, u.ID, func(cur []Subscription) ([]Subscription, error) {
		if msg, stop := n.check(l, cur, r); stop {
			limitMsg = msg
			return nil, errRefused
		}
		return append(cur, s), nil
	})
	switch {
	case errors.Is(err, errRefused):
		return limitMsg, nil
	case errors.Is(err, ErrFull):
		return answer("", tr(l, "notify.reply.full")), nil
	case err != nil:
		return blocks.Message{}, err
	}
	n.Log.InfoContext(ctx, "notification subscription", slog.String("subscription", s.ID), slog.String("slackUser", u.ID), slog.String("cluster", s.Cluster),
		slog.String("impersonated", ident.User), slog.String("job", s.Ref()), slog.Time("expires", s.Expires))
	n.enqueue(s.ID)
	return answer("", tr(l, "notify.reply.subscribed", i18n.Verbatim(ref(r)), i18n.Verbatim(stamp(l, s.Expires, "Jan 2 15:04 MST")), DescribeMsg(wl))), nil
}

var errRefused = errors.New("notify: refused")

// NoClusterError is Subscribe's error for a job in a cluster notifications
// do not read (not in Notifier.Clusters).
type NoClusterError struct{ Cluster string }

func (e *NoClusterError) Error() string {
	return "notify: notifications do not read cluster " + e.Cluster
}

// UnreadCluster is the cluster, for the bot's answer.
func (e *NoClusterError) UnreadCluster() string { return e.Cluster }

// refuse reads the user's subscriptions and says why one more is refused.
func (n *Notifier) refuse(ctx context.Context, l i18n.Lang, user string, r blocks.JobRef) (blocks.Message, bool) {
	cur, err := n.Store.User(ctx, user)
	if err != nil {
		return blocks.Message{}, false // the write checks again
	}
	return n.check(l, cur, r)
}

func (n *Notifier) check(l i18n.Lang, cur []Subscription, r blocks.JobRef) (blocks.Message, bool) {
	for _, c := range cur {
		if c.Cluster == r.Cluster && c.Namespace == r.Namespace && c.Kind == r.Kind && c.Name == r.Name {
			return answer("", tr(l, "notify.reply.already", i18n.Verbatim(ref(r)), i18n.Verbatim(blocks.Code(c.ID)), i18n.Verbatim(stamp(l, c.Expires, "Jan 2 15:04 MST")))), true
		}
	}
	if len(cur) >= n.MaxPerUser {
		var names []string
		for _, c := range cur {
			names = append(names, job(&c))
		}
		return answer("", tr(l, "notify.reply.limit", i18n.Num(len(cur)), i18n.Verbatim(strings.Join(names, listSep(l))))), true
	}
	return blocks.Message{}, false
}

// canWatch asks the API server, as the subscriber, whether they may list
// and watch Workloads in ns.
func canWatch(ctx context.Context, cl *rbac.Clients, ns string) (bool, error) {
	for _, verb := range []string{"list", "watch"} {
		rev, err := cl.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Group: kueue.GroupVersion.Group, Resource: "workloads",
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			return false, fmt.Errorf("notify: access review (%s workloads in %s): %w", verb, ns, err)
		}
		if !rev.Status.Allowed {
			return false, nil
		}
	}
	return true, nil
}

// Unsubscribe ends the user's subscription id (the Stop button,
// ActionStop); only u's own subscriptions can match. The message is the
// reply to show u.
func (n *Notifier) Unsubscribe(ctx context.Context, u rbac.SlackUser, id string) (blocks.Message, error) {
	l := n.lang(ctx, u.ID)
	var gone *Subscription
	err := n.update(ctx, u.ID, func(cur []Subscription) ([]Subscription, error) {
		i := slices.IndexFunc(cur, func(s Subscription) bool { return s.ID == id })
		if i < 0 {
			return nil, errNoSubscription
		}
		gone = &cur[i]
		return slices.Delete(slices.Clone(cur), i, i+1), nil
	})
	if errors.Is(err, errNoSubscription) {
		return answer("", tr(l, "notify.reply.ended")), nil
	}
	if err != nil {
		return blocks.Message{}, err
	}
	n.Log.InfoContext(ctx, "notification subscription stopped", slog.String("subscription", id), slog.String("slackUser", u.ID), slog.String("job", gone.Ref()))
	return answer("", tr(l, "notify.reply.stopped", i18n.Verbatim(job(gone)))), nil
}

// StopAll ends every subscription of the user ("stop" in the DM: IsStop).
func (n *Notifier) StopAll(ctx context.Context, u rbac.SlackUser) (blocks.Message, error) {
	l := n.lang(ctx, u.ID)
	var gone []Subscription
	err := n.update(ctx, u.ID, func(cur []Subscription) ([]Subscription, error) {
		if len(cur) == 0 {
			return nil, errNoSubscription
		}
		gone = cur
		return nil, nil
	})
	if errors.Is(err, errNoSubscription) {
		return answer("", tr(l, "notify.reply.none")), nil
	}
	if err != nil {
		return blocks.Message{}, err
	}
	var names []string
	for i := range gone {
		names = append(names, job(&gone[i]))
	}
	n.Log.InfoContext(ctx, "notification subscriptions stopped", slog.String("slackUser", u.ID), slog.Int("count", len(gone)))
	return answer("", tr(l, "notify.reply.stopped", i18n.Verbatim(strings.Join(names, listSep(l))))), nil
}

// stopWords are what "stop" may be written as in the DM.
var stopWords = []string{"stop", "stop all", "stop notifications", "stop notifying me", "unsubscribe", "cancel", "arrête", "arreter", "arrêter", "停止", "止めて"}

// IsStop reports whether a DM's text asks to stop notifications (the whole
// message, case and punctuation aside): the bot then calls StopAll for
// the sender instead of answering it as a question.
func IsStop(text string) bool {
	t := strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(text), ".!。！")))
	return slices.Contains(stopWords, t)
}
