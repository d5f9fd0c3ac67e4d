package fetch

import "github.com/kueuebot/kueuebot/i18n"

// e and k are i18n.E and i18n.Kinds, short for the catalog.
var e, k = i18n.E, i18n.Kinds

const (
	kO = i18n.KindObject
	kN = i18n.KindName
	kV = i18n.KindVerbatim
	kM = i18n.KindMsg
)

// The catalog of package fetch: ReadError's message for the user
// (ReadError.UserMsg), built from what went wrong (fetch.fault.*, a
// predicate after "The cluster") and what was read (fetch.read.*). The
// client's own error text never appears in it.
var _ = i18n.Register(
	e("fetch.readError", k(kM, kM),
		"The cluster %[1]s when I read %[2]s, so I did not judge your job. Try again in a minute, or tell the platform team if it keeps happening.",
		"Le cluster %[1]s quand j’ai lu %[2]s, je n’ai donc pas jugé votre job. Réessayez dans une minute, ou prévenez l’équipe plateforme si cela se reproduit.",
		"%[2]s読み取ったとき、クラスター%[1]s。そのため、あなたのジョブは判定していません。1 分後にもう一度試すか、繰り返し起きる場合はプラットフォームチームに伝えてください。",
		"读取%[2]s时，集群%[1]s，所以我没有判断你的作业。请一分钟后再试；如果一直发生，请告诉平台团队。"),

	// What went wrong. Japanese starts each with its particle (が, に, と).
	e("fetch.fault.timeoutWithin", k(kV),
		"did not answer in %[1]s",
		"n’a pas répondu en %[1]s",
		"が %[1]s 以内に応答しませんでした",
		"没有在 %[1]s 内应答"),
	e("fetch.fault.timeout", nil,
		"did not answer in time",
		"n’a pas répondu à temps",
		"が時間内に応答しませんでした",
		"没有及时应答"),
	e("fetch.fault.serverError", k(kV),
		"answered with a server error (%[1]s)",
		"a répondu par une erreur serveur (%[1]s)",
		"がサーバーエラーを返しました（%[1]s）",
		"返回了服务器错误（%[1]s）"),
	e("fetch.fault.throttled", nil,
		"is overloaded and kept asking me to slow down (HTTP 429)",
		"est surchargé et m’a demandé à plusieurs reprises de ralentir (HTTP 429)",
		"が過負荷で、速度を落とすよう繰り返し求めてきました（HTTP 429）",
		"过载了，一直要求我放慢速度（HTTP 429）"),
	e("fetch.fault.unauthorized", k(kV),
		"did not accept the credentials (%[1]s; check the kubeconfig or the bot's token)",
		"n’a pas accepté les identifiants (%[1]s ; vérifiez le kubeconfig ou le jeton du bot)",
		"が認証情報を受け付けませんでした（%[1]s。kubeconfig か bot のトークンを確認してください）",
		"不接受凭据（%[1]s；请检查 kubeconfig 或机器人的令牌）"),
	e("fetch.fault.rejected", k(kV),
		"refused my request (%[1]s)",
		"a refusé ma requête (%[1]s)",
		"がリクエストを拒否しました（%[1]s）",
		"拒绝了我的请求（%[1]s）"),
	e("fetch.fault.unreachable", nil,
		"could not be reached",
		"n’a pas pu être joint",
		"に接続できませんでした",
		"无法连接"),
	e("fetch.fault.connectionLost", nil,
		"dropped the connection",
		"a coupé la connexion",
		"が接続を切断しました",
		"断开了连接"),
	e("fetch.fault.tls", nil,
		"failed the TLS handshake (check the certificates in the kubeconfig)",
		"a échoué à la négociation TLS (vérifiez les certificats du kubeconfig)",
		"との TLS ハンドシェイクに失敗しました（kubeconfig の証明書を確認してください）",
		"的 TLS 握手失败（请检查 kubeconfig 中的证书）"),
	e("fetch.fault.malformed", nil,
		"sent an answer I could not read",
		"a envoyé une réponse que je n’ai pas pu lire",
		"が読み取れない応答を返しました",
		"发来了我无法读取的应答"),

	// What was read. Japanese ends each with its particle (を); Chinese
	// spaces a Latin name off from the sentence around it.
	e("fetch.read.discovery", k(kN),
		"which APIs it serves (%[1]s)",
		"quelles API il sert (%[1]s)",
		"提供している API（%[1]s）を",
		"它提供哪些 API（%[1]s）"),
	e("fetch.read.namespaces", nil,
		"which namespaces you may use",
		"les namespaces auxquels vous avez accès",
		"あなたが使える Namespace を",
		"你可以使用哪些命名空间"),
	e("fetch.read.list", k(kN),
		"the %[1]ss",
		"les %[1]ss",
		"%[1]s の一覧を",
		" %[1]s 列表"),
	e("fetch.read.object", k(kN, kO),
		"the %[1]s %[2]s",
		"l’objet %[1]s %[2]s",
		"%[1]s %[2]s を",
		" %[1]s %[2]s "),
	e("fetch.read.nsObject", k(kN, kN, kO),
		"the %[1]s %[2]s/%[3]s",
		"l’objet %[1]s %[2]s/%[3]s",
		"%[1]s %[2]s/%[3]s を",
		" %[1]s %[2]s/%[3]s "),
)
