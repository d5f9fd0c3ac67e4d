package fetch

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
)

func TestCatalog(t *testing.T) {
	i18ntest.CheckCatalog(t, "fetch.")
}

// TestReadErrorInEachLanguage: a failed read says what failed and what was
// read in the asker's language (UserMsg, UserMessageIn); UserMessage and
// Error keep the English, and the client's error text stays out of it.
func TestReadErrorInEachLanguage(t *testing.T) {
	refused := errors.New("dial tcp 10.0.0.1:6443: connect: connection refused")
	for _, tc := range []struct {
		name string
		re   *ReadError
		want [4]string
	}{
		{"timeout", &ReadError{Kind: KindWorkload, Namespace: "team-a", Name: "job-train-7", Class: FaultTimeout, Timeout: 5 * time.Second, Err: refused}, [4]string{
			"The cluster did not answer in 5s when I read the Workload team-a/job-train-7, so I did not judge your job. Try again in a minute, or tell the platform team if it keeps happening.",
			"Le cluster n’a pas répondu en 5s quand j’ai lu l’objet Workload team-a/job-train-7, je n’ai donc pas jugé votre job. Réessayez dans une minute, ou prévenez l’équipe plateforme si cela se reproduit.",
			"Workload team-a/job-train-7 を読み取ったとき、クラスターが 5s 以内に応答しませんでした。そのため、あなたのジョブは判定していません。1 分後にもう一度試すか、繰り返し起きる場合はプラットフォームチームに伝えてください。",
			"读取 Workload team-a/job-train-7 时，集群没有在 5s 内应答，所以我没有判断你的作业。请一分钟后再试；如果一直发生，请告诉平台团队。",
		}},
		{"timeout, no limit", &ReadError{Kind: "Pod", Namespace: "team-a", Class: FaultTimeout, Err: refused}, [4]string{
			"The cluster did not answer in time when I read the Pods, so I did not judge your job. Try again in a minute, or tell the platform team if it keeps happening.",
			"Le cluster n’a pas répondu à temps quand j’ai lu les Pods, je n’ai donc pas jugé votre job. Réessayez dans une minute, ou prévenez l’équipe plateforme si cela se reproduit.",
			"Pod の一覧を読み取ったとき、クラスターが時間内に応答しませんでした。そのため、あなたのジョブは判定していません。1 分後にもう一度試すか、繰り返し起きる場合はプラットフォームチームに伝えてください。",
			"读取 Pod 列表时，集群没有及时应答，所以我没有判断你的作业。请一分钟后再试；如果一直发生，请告诉平台团队。",
		}},
		// 403 is the server's answer, a Gap, never a ReadError: the
		// refusals a ReadError carries are 401 and the other 4xx.
		{"unauthorized", &ReadError{Kind: KindNamespaces, Class: FaultUnauthorized, Status: 401, Err: refused}, [4]string{
			"The cluster did not accept the credentials (HTTP 401 Unauthorized; check the kubeconfig or the bot's token) when I read which namespaces you may use, so I did not judge your job. Try again in a minute, or tell the platform team if it keeps happening.",
			"Le cluster n’a pas accepté les identifiants (HTTP 401 Unauthorized ; vérifiez le kubeconfig ou le jeton du bot) quand j’ai lu les namespaces auxquels vous avez accès, je n’ai donc pas jugé votre job. Réessayez dans une minute, ou prévenez l’équipe plateforme si cela se reproduit.",
			"あなたが使える Namespace を読み取ったとき、クラスターが認証情報を受け付けませんでした（HTTP 401 Unauthorized。kubeconfig か bot のトークンを確認してください）。そのため、あなたのジョブは判定していません。1 分後にもう一度試すか、繰り返し起きる場合はプラットフォームチームに伝えてください。",
			"读取你可以使用哪些命名空间时，集群不接受凭据（HTTP 401 Unauthorized；请检查 kubeconfig 或机器人的令牌），所以我没有判断你的作业。请一分钟后再试；如果一直发生，请告诉平台团队。",
		}},
		{"rejected", &ReadError{Kind: kindDiscovery, Name: "kueue.x-k8s.io", Class: FaultRejected, Status: 422, Err: refused}, [4]string{
			"The cluster refused my request (HTTP 422 Unprocessable Entity) when I read which APIs it serves (kueue.x-k8s.io), so I did not judge your job. Try again in a minute, or tell the platform team if it keeps happening.",
			"Le cluster a refusé ma requête (HTTP 422 Unprocessable Entity) quand j’ai lu quelles API il sert (kueue.x-k8s.io), je n’ai donc pas jugé votre job. Réessayez dans une minute, ou prévenez l’équipe plateforme si cela se reproduit.",
			"提供している API（kueue.x-k8s.io）を読み取ったとき、クラスターがリクエストを拒否しました（HTTP 422 Unprocessable Entity）。そのため、あなたのジョブは判定していません。1 分後にもう一度試すか、繰り返し起きる場合はプラットフォームチームに伝えてください。",
			"读取它提供哪些 API（kueue.x-k8s.io）时，集群拒绝了我的请求（HTTP 422 Unprocessable Entity），所以我没有判断你的作业。请一分钟后再试；如果一直发生，请告诉平台团队。",
		}},
	} {
		for _, l := range i18n.All() {
			if got := tc.re.UserMessageIn(l); got != tc.want[l] {
				t.Errorf("%s in %s:\n got %q\nwant %q", tc.name, l, got, tc.want[l])
			}
		}
		if got := tc.re.UserMessage(); got != tc.want[i18n.English] {
			t.Errorf("%s: UserMessage %q, want the English", tc.name, got)
		}
		i18ntest.CheckMessage(t, tc.re.UserMsg())
	}
}

// TestReadErrorTranslatedForEachFault: every fault class and every kind of
// read renders without English prose in French, Japanese and Chinese, and
// never quotes the client's error.
func TestReadErrorTranslatedForEachFault(t *testing.T) {
	classes := []FaultClass{FaultTimeout, FaultServerError, FaultThrottled, FaultUnauthorized, FaultRejected,
		FaultUnreachable, FaultConnectionLost, FaultTLS, FaultMalformed}
	reads := []ReadError{{Kind: kindDiscovery, Name: "kueue.x-k8s.io"}, {Kind: KindNamespaces},
		{Kind: "Pod", Namespace: "team-a"}, {Kind: KindWorkload, Namespace: "team-a", Name: "wl"}, {Kind: "Job", Name: "train-7"}}
	for _, c := range classes {
		for _, r := range reads {
			re := r
			re.Class, re.Status, re.Timeout, re.Err = c, 503, 2*time.Second, errors.New("secret client text")
			i18ntest.CheckMessage(t, re.UserMsg())
			for _, l := range i18n.All() {
				s := re.UserMessageIn(l)
				if strings.Contains(s, "secret client text") || strings.Contains(s, "!(") {
					t.Errorf("%s/%s in %s: %q", c, r.Kind, l, s)
				}
				i18ntest.AssertTranslated(t, l, s, "HTTP 503 Service Unavailable", "HTTP 401 Unauthorized")
			}
		}
	}
}
