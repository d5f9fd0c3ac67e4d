package render

import "github.com/kueuebot/kueuebot/i18n"

// Options are how a report renders besides its format.
type Options struct {
	// Lang is the language of the sentences, labels, section titles and
	// table headings; English (the zero Lang) when unset. Codes, causes,
	// names, quantities, commands and Kueue's own messages stay as they
	// are in every language.
	Lang i18n.Lang
}

func tr(l i18n.Lang, id i18n.ID, args ...i18n.Arg) string { return i18n.Render(l, i18n.M(id, args...)) }

// e and k are i18n.E and i18n.Kinds, short for the catalog files; kN, kV
// and kO are the argument kinds.
var e, k = i18n.E, i18n.Kinds

const (
	kN = i18n.KindName
	kV = i18n.KindVerbatim
	kO = i18n.KindObject
)

// Catalog entries of the text and Markdown renderings.
var _ = i18n.Register(
	e("render.label.cluster", nil, "Cluster", "Cluster", "クラスター", "集群"),
	e("render.cluster.noAnswer", k(kV, kV), "%[1]s did not answer: %[2]s", "%[1]s n’a pas répondu : %[2]s", "%[1]s から応答がありません：%[2]s", "%[1]s 未响应：%[2]s"),
	e("render.label.workload", nil, "Workload", "Workload", "Workload", "Workload"),
	e("render.label.position", k(kV), " (position %[1]s)", " (position %[1]s)", "（%[1]s 番目）", "（第 %[1]s 位）"),
	e("render.label.verdict", nil, "Verdict", "Verdict", "判定", "结论"),
	e("render.label.stage", k(kV, kN), "%[1]s (stage %[2]s)", "%[1]s (étape %[2]s)", "%[1]s（段階 %[2]s）", "%[1]s（阶段 %[2]s）"),
	e("render.label.estimate", nil, "Estimated start", "Démarrage estimé", "開始見込み", "预计开始"),
	e("render.label.basis", nil, "Based on", "D’après", "根拠", "依据"),
	e("render.label.basedOn", k(kV), " (based on %[1]s)", " (d’après %[1]s)", "（根拠：%[1]s）", "（依据：%[1]s）"),
	e("render.section.quota", nil, "Quota", "Quota", "クォータ", "配额"),
	e("render.section.remedies", nil, "Remedies", "Solutions", "対処法", "解决办法"),
	e("render.section.findings", nil, "Findings", "Constats", "所見", "发现"),
	e("render.section.gaps", nil, "Gaps", "Lacunes", "確認できなかった項目", "未能检查的项"),
	e("render.section.evidence", nil, "Evidence", "Éléments", "根拠となる記録", "证据"),
	e("render.md.whatToDo", nil, "What to do", "Que faire", "対処法", "怎么办"),
	e("render.md.findings", nil, "Findings", "Constats", "所見", "发现"),
	e("render.md.couldNotCheck", nil, "Could not check", "Non vérifié", "確認できなかった項目", "未能检查"),
	e("render.md.queues", k(kV, kV, kV, kV),
		"LocalQueue `%[1]s` (position %[2]s), ClusterQueue `%[3]s` (position %[4]s)",
		"LocalQueue `%[1]s` (position %[2]s), ClusterQueue `%[3]s` (position %[4]s)",
		"LocalQueue `%[1]s`（%[2]s 番目）、ClusterQueue `%[3]s`（%[4]s 番目）",
		"LocalQueue `%[1]s`（第 %[2]s 位），ClusterQueue `%[3]s`（第 %[4]s 位）"),
	e("render.md.queuesLabel", nil, "Queues", "Files d’attente", "キュー", "队列"),
	e("render.unknown", nil, "unknown", "inconnue", "不明", "未知"),
	e("render.yes", nil, "yes", "oui", "はい", "是"),
	e("render.no", nil, "no", "non", "いいえ", "否"),
	e("render.ineligible", nil, " (ineligible)", " (inéligible)", "（対象外）", "（不适用）"),
	e("render.quota.header", nil,
		"  POD SET\tFLAVOR\tRESOURCE\tREQUESTED\tNOMINAL\tBORROW LIMIT\tLEND LIMIT\tRESERVED\tAVAILABLE\tMAX\tFITS NOW\tFITS EVER\tSHORT BY",
		"  POD SET\tRESOURCEFLAVOR\tRESSOURCE\tDEMANDÉ\tNOMINAL\tLIMITE D’EMPRUNT\tLIMITE DE PRÊT\tRÉSERVÉ\tDISPONIBLE\tMAX\tTIENT MAINTENANT\tTIENT UN JOUR\tMANQUE",
		"  Pod セット\tフレーバー\tリソース\t要求\tnominal\t借用上限\t貸出上限\t予約済み\t空き\t最大\t今すぐ収まる\tいつか収まる\t不足",
		"  Pod 集\t规格\t资源\t请求\t名义配额\t借用上限\t借出上限\t已预留\t可用\t最大\t现在能容纳\t最终能容纳\t差额"),
	e("render.quota.mdHeader", nil,
		"| Pod set | Flavor | Resource | Requested | Nominal | Borrow limit | Lend limit | Reserved | Available | Max | Fits now | Fits ever | Short by |",
		"| Pod set | ResourceFlavor | Ressource | Demandé | Nominal | Limite d’emprunt | Limite de prêt | Réservé | Disponible | Max | Tient maintenant | Tient un jour | Manque |",
		"| Pod セット | フレーバー | リソース | 要求 | nominal | 借用上限 | 貸出上限 | 予約済み | 空き | 最大 | 今すぐ収まる | いつか収まる | 不足 |",
		"| Pod 集 | 规格 | 资源 | 请求 | 名义配额 | 借用上限 | 借出上限 | 已预留 | 可用 | 最大 | 现在能容纳 | 最终能容纳 | 差额 |"),
	e("render.evidence.header", nil,
		"  KIND\tSOURCE\tREASON\tAGE\tMESSAGE",
		"  TYPE\tSOURCE\tRAISON\tÂGE\tMESSAGE",
		"  種類\tソース\t理由\t経過\tメッセージ",
		"  类型\t来源\t原因\t时长\t消息"),
	e("render.evidence.repeat", k(kV, kV, kV), "%[1]s (x%[2]s over %[3]s)", "%[1]s (x%[2]s en %[3]s)", "%[1]s（%[3]s の間に %[2]s 回）", "%[1]s（%[3]s 内 %[2]s 次）"),
	e("render.ineligible.podSet", k(kN, kN, kV),
		"  flavor %[1]s is ineligible for pod set %[2]s: %[3]s",
		"  le ResourceFlavor %[1]s est inéligible pour le pod set %[2]s : %[3]s",
		"  フレーバー %[1]s は Pod セット %[2]s の対象外です：%[3]s",
		"  规格 %[1]s 不适用于 Pod 集 %[2]s：%[3]s"),
	e("render.ineligible.one", k(kN, kV),
		"  flavor %[1]s is ineligible: %[2]s",
		"  le ResourceFlavor %[1]s est inéligible : %[2]s",
		"  フレーバー %[1]s は対象外です：%[2]s",
		"  规格 %[1]s 不适用：%[2]s"),
	e("render.clusterScopedByBot", k(kO),
		"  (ClusterQueue %[1]s and its flavors were read by kueuebot on your behalf)",
		"  (la ClusterQueue %[1]s et ses ResourceFlavors ont été lus par kueuebot pour votre compte)",
		"  （ClusterQueue %[1]s とそのフレーバーは、kueuebot があなたの代わりに読み取りました）",
		"  （ClusterQueue %[1]s 及其规格由 kueuebot 代表你读取）"),
	e("render.gap.forbidden", nil,
		"you may not read it; your platform team can check it or grant read access",
		"vous n’avez pas le droit de le lire ; votre équipe plateforme peut le vérifier ou vous en donner l’accès en lecture",
		"あなたには読み取り権限がありません。プラットフォームチームが確認するか、読み取り権限を付与できます",
		"你无权读取它；平台团队可以帮你检查或授予读取权限"),
	e("render.gap.unavailable", nil,
		"the API is not served or did not answer", "l’API n’est pas servie ou n’a pas répondu", "その API は提供されていないか、応答しませんでした", "该 API 未提供或没有响应"),
	e("render.gap.timeout", nil,
		"the API server did not answer in time; try again", "le serveur d’API n’a pas répondu à temps ; réessayez", "API サーバーが時間内に応答しませんでした。もう一度試してください", "API 服务器未及时响应；请重试"),
	e("render.gap.notFound", nil, "it does not exist", "il n’existe pas", "存在しません", "它不存在"),
	e("render.gap.other", nil, "could not be read", "n’a pas pu être lu", "読み取れませんでした", "无法读取"),
	e("render.who.you", nil, "you", "vous", "あなた", "你"),
	e("render.who.platform", nil, "platform team", "équipe plateforme", "プラットフォームチーム", "平台团队"),
	e("render.severity.info", nil, "Info", "Info", "情報", "信息"),
	e("render.severity.warning", nil, "Warning", "Avertissement", "警告", "警告"),
	e("render.severity.blocker", nil, "Blocker", "Bloquant", "阻害要因", "阻碍"),
	// MultiKueue
	e("render.mk.check", k(kN, kV), "  check %[1]s: %[2]s", "  check %[1]s : %[2]s", "  チェック %[1]s：%[2]s", "  检查 %[1]s：%[2]s"),
	e("render.mk.runsOn", k(kN), "  runs on worker cluster %[1]s", "  s’exécute sur le cluster worker %[1]s", "  ワーカークラスター %[1]s で実行中", "  在工作集群 %[1]s 上运行"),
	e("render.mk.copiedTo", k(kV), "  copied to worker clusters %[1]s", "  copié vers les clusters workers %[1]s", "  ワーカークラスター %[1]s にコピー済み", "  已复制到工作集群 %[1]s"),
	e("render.mk.onWorker", k(kN), "On worker cluster %[1]s:", "Sur le cluster worker %[1]s :", "ワーカークラスター %[1]s：", "在工作集群 %[1]s 上："),
	e("render.mk.onWorkerMd", k(kN), "#### On worker cluster `%[1]s`", "#### Sur le cluster worker `%[1]s`", "#### ワーカークラスター `%[1]s`", "#### 在工作集群 `%[1]s` 上"),
)

// colon ends a label: "Quota:", French "Quota :", Japanese and Chinese
// "クォータ：".
func colon(l i18n.Lang) string {
	switch l {
	case i18n.French:
		return " :"
	case i18n.Japanese, i18n.Chinese:
		return "："
	}
	return ":"
}

// label is a section title or field label with its colon.
func label(l i18n.Lang, id i18n.ID) string { return tr(l, id) + colon(l) }
