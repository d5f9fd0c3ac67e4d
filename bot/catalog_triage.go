package bot

import "github.com/kueuebot/kueuebot/i18n"

// The catalog entries of triage answers and of the Escalate button's
// refusals (to the presser, in their language).
var _ = i18n.Register(
	i18n.Entry{ID: "bot.triage.unparsable", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I could not understand that. Name the job, e.g. %[1]s.",
		Fr: "Je n’ai pas compris. Nommez le job, par exemple %[1]s.",
		Ja: "理解できませんでした。ジョブ名を書いてください。例：%[1]s。",
		Zh: "我没能理解。请写出作业名称，例如 %[1]s。"},
	i18n.Entry{ID: "bot.triage.listSent", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I sent %[1]s the list of their jobs that are not running, privately: pick one to see why it waits.",
		Fr: "J’ai envoyé en privé à %[1]s la liste de ses jobs qui ne tournent pas : il suffit d’en choisir un pour voir pourquoi il attend.",
		Ja: "%[1]s さんに、実行中でないジョブの一覧を個別に送りました。1 つ選ぶと、待っている理由がわかります。",
		Zh: "我已私下把 %[1]s 未在运行的作业列表发给了对方：选择其中一个即可查看它为什么在等待。"},
	i18n.Entry{ID: "bot.escalate.off",
		En: "Escalation is not set up in this channel. Ask your platform team directly.",
		Fr: "La transmission à l’équipe plateforme n’est pas configurée dans ce canal. Contactez-la directement.",
		Ja: "このチャンネルではエスカレーションが設定されていません。プラットフォームチームに直接連絡してください。",
		Zh: "此频道未设置上报功能。请直接联系平台团队。"},
	i18n.Entry{ID: "bot.escalate.outdated",
		En: "That button is out of date. Ask me again, e.g. `why is train-7 waiting?`",
		Fr: "Ce bouton n’est plus à jour. Reposez la question, par exemple `pourquoi train-7 attend ?`",
		Ja: "このボタンは古くなっています。もう一度質問してください。例：`train-7 はなぜ待っているの？`",
		Zh: "这个按钮已过期。请重新提问，例如 `为什么train-7在等待？`"},
	i18n.Entry{ID: "bot.escalate.noAuthor",
		En: "I cannot tell who asked in this thread, so I cannot escalate it. Ask your platform team directly.",
		Fr: "Je ne sais pas qui a posé la question dans ce fil : je ne peux donc pas le transmettre. Contactez directement votre équipe plateforme.",
		Ja: "このスレッドで誰が質問したかわからないため、エスカレーションできません。プラットフォームチームに直接連絡してください。",
		Zh: "我无法确定是谁在此讨论串中提问，因此无法上报。请直接联系平台团队。"},
	i18n.Entry{ID: "bot.escalate.cannotSee", Args: []i18n.Kind{i18n.KindVerbatim, i18n.KindVerbatim},
		En: "You cannot see %[1]s, so you cannot escalate it. %[2]s, who asked, can escalate it, or ask your platform team directly.",
		Fr: "Vous ne pouvez pas voir %[1]s : vous ne pouvez donc pas le transmettre. %[2]s, qui a posé la question, peut le faire ; sinon, contactez directement votre équipe plateforme.",
		Ja: "あなたは %[1]s を見られないため、エスカレーションできません。質問した %[2]s さんならエスカレーションできます。またはプラットフォームチームに直接連絡してください。",
		Zh: "你无法查看 %[1]s，因此无法上报。提问者 %[2]s 可以上报，或者请直接联系平台团队。"},
	i18n.Entry{ID: "bot.escalate.unreadable", Args: []i18n.Kind{i18n.KindVerbatim, i18n.KindVerbatim},
		En: "I could not read %[1]s as %[2]s sees it, so I cannot escalate it. Ask your platform team directly.",
		Fr: "Je n’ai pas pu lire %[1]s tel que %[2]s le voit : je ne peux donc pas le transmettre. Contactez directement votre équipe plateforme.",
		Ja: "%[2]s さんの権限で %[1]s を読み取れなかったため、エスカレーションできません。プラットフォームチームに直接連絡してください。",
		Zh: "我无法以 %[2]s 的视角读取 %[1]s，因此无法上报。请直接联系平台团队。"},
)
