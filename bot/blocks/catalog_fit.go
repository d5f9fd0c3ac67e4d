package blocks

import "github.com/kueuebot/kueuebot/i18n"

// Catalog entries of the "Will this fit?" answer.
var _ = i18n.Register(
	i18n.Entry{ID: "blocks.fit.now", En: "admitted now", Fr: "admis maintenant", Ja: "今すぐアドミット", Zh: "立即准入"},
	i18n.Entry{ID: "blocks.fit.waits", En: "would wait", Fr: "attendrait", Ja: "待機することになる", Zh: "需要等待"},
	i18n.Entry{ID: "blocks.fit.never", En: "never, as it is", Fr: "jamais, en l’état", Ja: "このままではアドミットされない", Zh: "按现状永不准入"},
	i18n.Entry{ID: "blocks.fit.unknown", En: "cannot tell", Fr: "impossible à dire", Ja: "判断できない", Zh: "无法判断"},
	i18n.Entry{ID: "blocks.fit.header", Args: []i18n.Kind{i18n.KindObject},
		En: "Will %[1]s fit?", Fr: "%[1]s tiendra-t-il ?", Ja: "%[1]s は収まるか", Zh: "%[1]s 能否容纳？"},
	i18n.Entry{ID: "blocks.fit.podSet", Args: []i18n.Kind{i18n.KindVerbatim, i18n.KindVerbatim, i18n.KindVerbatim},
		En: "pod set %[1]s: %[2]s × %[3]s", Fr: "pod set %[1]s : %[2]s × %[3]s", Ja: "Pod セット %[1]s：%[2]s × %[3]s", Zh: "Pod 集 %[1]s：%[2]s × %[3]s"},
	i18n.Entry{ID: "blocks.fit.podSets", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "*Pod sets, as Kueue would count them* (in namespace %[1]s)",
		Fr: "*Pod sets, tels que Kueue les compterait* (dans le namespace %[1]s)",
		Ja: "*Pod セット（Kueue が数える値）*（Namespace %[1]s）",
		Zh: "*Pod 集（按 Kueue 的计算方式）*（命名空间 %[1]s）"},
	i18n.Entry{ID: "blocks.fit.unknownRC", Args: []i18n.Kind{i18n.KindObject},
		En: "RuntimeClass %[1]s could not be read: its pod overhead is not counted",
		Fr: "La RuntimeClass %[1]s n’a pas pu être lue : son overhead de Pod n’est pas compté",
		Ja: "RuntimeClass %[1]s を読み取れませんでした：その Pod のオーバーヘッドは計算に含まれていません",
		Zh: "无法读取 RuntimeClass %[1]s：未计入其 Pod 开销"},
	i18n.Entry{ID: "blocks.fit.noEstimate", En: "no estimate", Fr: "pas d’estimation", Ja: "見込みなし", Zh: "无法预估"},
	i18n.Entry{ID: "blocks.fit.estimate", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "*Estimated start:* %[1]s", Fr: "*Démarrage estimé :* %[1]s", Ja: "*開始見込み：* %[1]s", Zh: "*预计开始：* %[1]s"},
	i18n.Entry{ID: "blocks.fit.whatToDo", En: "What to do", Fr: "Que faire", Ja: "対処法", Zh: "怎么办"},
	i18n.Entry{ID: "blocks.fit.who.you", En: "you", Fr: "vous", Ja: "あなた", Zh: "你"},
	i18n.Entry{ID: "blocks.fit.who.platform", En: "platform team", Fr: "équipe plateforme", Ja: "プラットフォームチーム", Zh: "平台团队"},
	i18n.Entry{ID: "blocks.fit.couldNotRead", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I could not read: %[1]s", Fr: "Je n’ai pas pu lire : %[1]s", Ja: "読み取れなかったもの：%[1]s", Zh: "我无法读取：%[1]s"},
	i18n.Entry{ID: "blocks.fit.more", En: "The full answer: `kueuebot check -f FILE`.", Fr: "La réponse complète : `kueuebot check -f FILE`.", Ja: "回答の全文：`kueuebot check -f FILE`。", Zh: "完整回答：`kueuebot check -f FILE`。"},
	i18n.Entry{ID: "blocks.fit.noRequests", En: "no requests", Fr: "aucune request", Ja: "requests なし", Zh: "无 requests"},
)
