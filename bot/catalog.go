package bot

import "github.com/kueuebot/kueuebot/i18n"

// The catalog entries of the bot's own notices, help, App Home and
// language choice. Code (`train-7`), commands and object names stay as
// they are in every language.
var _ = i18n.Register(
	// Refusals.
	i18n.Entry{ID: "bot.refused.title",
		En: "I can't look that up for you", Fr: "Je ne peux pas consulter cela pour vous",
		Ja: "お調べできません", Zh: "我无法为你查询"},
	i18n.Entry{ID: "bot.refused.noUser",
		En: "I could not tell who you are, so I cannot look anything up for you.",
		Fr: "Je n’ai pas pu savoir qui vous êtes : je ne peux donc rien consulter pour vous.",
		Ja: "あなたが誰かを確認できなかったため、何もお調べできません。",
		Zh: "我无法确认你的身份，因此无法为你查询任何内容。"},
	i18n.Entry{ID: "bot.refused.unavailable",
		En: "I could not check your access right now. Please try again later.",
		Fr: "Je n’ai pas pu vérifier vos droits d’accès pour le moment. Réessayez plus tard.",
		Ja: "現在、あなたのアクセス権を確認できませんでした。しばらくしてからもう一度お試しください。",
		Zh: "目前无法检查你的访问权限。请稍后重试。"},
	i18n.Entry{ID: "bot.refused.notMapped",
		En: "You are not set up to use kueuebot yet. Ask your platform team to map your Slack account to a Kubernetes user.",
		Fr: "Vous n’êtes pas encore configuré pour utiliser kueuebot. Demandez à votre équipe plateforme d’associer votre compte Slack à un utilisateur Kubernetes.",
		Ja: "kueuebot を使う設定がまだされていません。Slack アカウントを Kubernetes ユーザーに対応付けるよう、プラットフォームチームに依頼してください。",
		Zh: "你还未配置为可以使用 kueuebot。请让平台团队将你的 Slack 账号映射到一个 Kubernetes 用户。"},
	// Interruptions and failures. The stage is one of bot.stage.*.
	i18n.Entry{ID: "bot.shutdown", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I am restarting and could not finish %[1]s. Please ask again in a minute.",
		Fr: "Je redémarre et n’ai pas pu finir de %[1]s. Reposez la question dans une minute.",
		Ja: "再起動中のため、%[1]sを完了できませんでした。1分後にもう一度質問してください。",
		Zh: "我正在重启，未能完成%[1]s。请一分钟后再问一次。"},
	i18n.Entry{ID: "bot.timeout", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I gave up %[1]s: it took too long. The cluster or Slack may be busy; please try again in a minute.",
		Fr: "J’ai renoncé à %[1]s : c’était trop long. Le cluster ou Slack est peut-être occupé ; réessayez dans une minute.",
		Ja: "%[1]sに時間がかかりすぎたため中断しました。クラスターか Slack が混雑している可能性があります。1分後にもう一度お試しください。",
		Zh: "%[1]s耗时过长，我已放弃。集群或 Slack 可能正忙；请一分钟后重试。"},
	i18n.Entry{ID: "bot.cancelled", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I stopped %[1]s because the request was cancelled.",
		Fr: "J’ai arrêté de %[1]s car la demande a été annulée.",
		Ja: "リクエストがキャンセルされたため、%[1]sを中止しました。",
		Zh: "由于请求已取消，我停止了%[1]s。"},
	i18n.Entry{ID: "bot.stage.identity",
		En: "checking who you are in Slack", Fr: "vérifier qui vous êtes dans Slack",
		Ja: "Slack でのあなたの確認", Zh: "在 Slack 中确认你的身份"},
	i18n.Entry{ID: "bot.stage.job", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "looking at %[1]s in the cluster", Fr: "examiner %[1]s dans le cluster",
		Ja: "クラスター内の %[1]s の確認", Zh: "在集群中查看 %[1]s"},
	i18n.Entry{ID: "bot.stage.jobs",
		En: "listing your jobs in the cluster", Fr: "lister vos jobs dans le cluster",
		Ja: "クラスター内のあなたのジョブの一覧取得", Zh: "列出你在集群中的作业"},
	i18n.Entry{ID: "bot.stage.queues",
		En: "listing your queues in the cluster", Fr: "lister vos files d’attente dans le cluster",
		Ja: "クラスター内のあなたのキューの一覧取得", Zh: "列出你在集群中的队列"},
	i18n.Entry{ID: "bot.stage.check",
		En: "checking your manifest against your queues", Fr: "vérifier votre manifeste par rapport à vos files d’attente",
		Ja: "あなたのキューに対するマニフェストの確認", Zh: "对照你的队列检查清单"},
	i18n.Entry{ID: "bot.stage.notify",
		En: "setting up your notifications", Fr: "mettre en place vos notifications",
		Ja: "通知の設定", Zh: "设置你的通知"},
	i18n.Entry{ID: "bot.notify.disabled",
		En: "I cannot send notifications here: they are off on this kueuebot (the platform team turns them on with `notify.enabled`). Ask me again later, e.g. `/kueue why train-7`.",
		Fr: "Je ne peux pas envoyer de notifications ici : elles sont désactivées sur ce kueuebot (l’équipe plateforme les active avec `notify.enabled`). Reposez la question plus tard, par exemple `/kueue why train-7`.",
		Ja: "ここでは通知を送れません。この kueuebot では通知が無効です（プラットフォームチームが `notify.enabled` で有効にします）。後でもう一度質問してください。例：`/kueue why train-7`。",
		Zh: "这里无法发送通知：此 kueuebot 未启用通知（平台团队可通过 `notify.enabled` 启用）。请稍后再问，例如 `/kueue why train-7`。"},
	i18n.Entry{ID: "bot.failed", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "Something went wrong while I looked at %[1]s. Please try again later; if it keeps happening, tell your platform team.",
		Fr: "Un problème est survenu pendant que j’examinais %[1]s. Réessayez plus tard ; si cela se reproduit, prévenez votre équipe plateforme.",
		Ja: "%[1]s の確認中に問題が発生しました。しばらくしてからもう一度お試しください。繰り返し起きる場合はプラットフォームチームに連絡してください。",
		Zh: "查看 %[1]s 时出错了。请稍后重试；如果问题持续，请告知平台团队。"},
	i18n.Entry{ID: "bot.unparsable",
		En: "I could not understand that. Type `help` to see what I can do.",
		Fr: "Je n’ai pas compris. Tapez `aide` pour voir ce que je sais faire.",
		Ja: "理解できませんでした。`ヘルプ` と入力すると、できることが表示されます。",
		Zh: "我没能理解。输入 `帮助` 查看我能做什么。"},
	i18n.Entry{ID: "bot.unsupported.jobs",
		En: "I cannot list your jobs yet. Ask me about one job instead, e.g. `why is train-7 waiting?`",
		Fr: "Je ne sais pas encore lister vos jobs. Demandez-moi plutôt un job précis, par exemple `pourquoi train-7 attend ?`",
		Ja: "まだジョブの一覧は出せません。代わりに 1 つのジョブについて質問してください。例：`train-7 はなぜ待っているの？`",
		Zh: "我还无法列出你的作业。请改为询问某一个作业，例如 `为什么train-7在等待？`"},
	i18n.Entry{ID: "bot.unsupported.queues",
		En: "I cannot list queues here. Ask me about a job instead, e.g. `why is train-7 waiting?`",
		Fr: "Je ne peux pas lister les files d’attente ici. Demandez-moi plutôt un job, par exemple `pourquoi train-7 attend ?`",
		Ja: "ここではキューの一覧は出せません。代わりにジョブについて質問してください。例：`train-7 はなぜ待っているの？`",
		Zh: "这里无法列出队列。请改为询问某个作业，例如 `为什么train-7在等待？`"},
	i18n.Entry{ID: "bot.unsupported.check",
		En: "I cannot check manifests here. Run `kueuebot check -f job.yaml` instead.",
		Fr: "Je ne peux pas vérifier de manifeste ici. Lancez plutôt `kueuebot check -f job.yaml`.",
		Ja: "ここではマニフェストを確認できません。代わりに `kueuebot check -f job.yaml` を実行してください。",
		Zh: "这里无法检查清单。请改为运行 `kueuebot check -f job.yaml`。"},
	i18n.Entry{ID: "bot.shortcut.noJob",
		En: "I could not find a job name in that message. Use the shortcut on a message that names one job, e.g. `train-7` or `jobset/train-7 -n team-a`.",
		Fr: "Je n’ai pas trouvé de nom de job dans ce message. Utilisez le raccourci sur un message qui nomme un job, par exemple `train-7` ou `jobset/train-7 -n team-a`.",
		Ja: "そのメッセージにジョブ名が見つかりませんでした。ジョブを 1 つ挙げているメッセージでショートカットを使ってください。例：`train-7`、`jobset/train-7 -n team-a`。",
		Zh: "在那条消息中没有找到作业名称。请在提到某个作业的消息上使用快捷方式，例如 `train-7` 或 `jobset/train-7 -n team-a`。"},
	i18n.Entry{ID: "bot.button.outdated",
		En: "That button is out of date. Ask me again, e.g. `/kueue why train-7`.",
		Fr: "Ce bouton n’est plus à jour. Reposez la question, par exemple `/kueue why train-7`.",
		Ja: "このボタンは古くなっています。もう一度質問してください。例：`/kueue why train-7`。",
		Zh: "这个按钮已过期。请重新提问，例如 `/kueue why train-7`。"},
	i18n.Entry{ID: "bot.sharedBy", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "Shared by %[1]s", Fr: "Partagé par %[1]s", Ja: "%[1]s さんが共有", Zh: "由 %[1]s 分享"},
	// The terminal chat's greeting (kueuebot chat, interactive); help and
	// quit are what to type, in every language.
	i18n.Entry{ID: "bot.chat.greeting",
		En: "kueuebot chat: ask why a job is waiting. Type help for examples, quit to leave.",
		Fr: "kueuebot chat : demandez pourquoi un job attend. Tapez help pour des exemples, quit pour quitter.",
		Ja: "kueuebot chat：ジョブが待機している理由を質問してください。help で例を表示し、quit で終了します。",
		Zh: "kueuebot chat：询问作业为什么在等待。输入 help 查看示例，输入 quit 退出。"},
	// Help.
	i18n.Entry{ID: "bot.help.title",
		En: "How to ask kueuebot", Fr: "Comment interroger kueuebot", Ja: "kueuebot への質問のしかた", Zh: "如何向 kueuebot 提问"},
	i18n.Entry{ID: "bot.help.text", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "Ask me why a job is waiting. I read the cluster as you, so I only see what you may see.\n" +
			"• `why is train-7 waiting?` or just `train-7`: a job in your namespaces\n" +
			"• `train-7 -n team-a`, `team-a/train-7` or `train-7 in ns team-a`: a job in a namespace\n" +
			"• `jobset/train-7`, `rayjob my-ray`: a job of a given kind (%[1]s)\n" +
			"• `job/NAME`: when the job's name is a common word such as `stuck`\n" +
			"• `my jobs`: your jobs that are not running; `my queues`: your queues\n" +
			"• `/kueue notify train-7` (or *Tell me when it starts* on an answer): a DM when it is admitted, runs, fails or finishes, where notifications are on; `stop` in our DM ends them\n" +
			"• `answer in French` (or `/kueue language fr`, or the App Home tab): the language I answer you in; `/kueue language auto` goes back to the language of each question\n" +
			"• `help`: this message\n" +
			"Ask in any language: `pourquoi train-7 attend ?`, `train-7 はなぜ待っているの？`, `为什么train-7在等待？`: I answer in the language you ask in.\n" +
			"Mention me (`@kueuebot train-7`), send me a direct message, or use `/kueue why train-7`, `/kueue jobs`, `/kueue queues`, `/kueue help`.",
		Fr: "Demandez-moi pourquoi un job attend. Je lis le cluster en votre nom : je ne vois que ce que vous avez le droit de voir.\n" +
			"• `pourquoi train-7 attend ?` ou simplement `train-7` : un job de vos namespaces\n" +
			"• `train-7 -n team-a`, `team-a/train-7` ou `train-7 dans team-a` : un job d’un namespace\n" +
			"• `jobset/train-7`, `rayjob my-ray` : un job d’un type donné (%[1]s)\n" +
			"• `job/NOM` : quand le nom du job est un mot courant comme `attente`\n" +
			"• `mes jobs` : vos jobs qui ne tournent pas ; `mes files` : vos files d’attente\n" +
			"• `/kueue notify train-7` (ou *Me prévenir au démarrage* sur une réponse) : un message privé quand il est admis, démarre, échoue ou se termine, là où les notifications sont activées ; `stop` dans notre conversation privée les arrête\n" +
			"• `réponds en anglais` (ou `/kueue language en`, ou l’onglet Accueil de l’app) : la langue de mes réponses ; `/kueue language auto` revient à la langue de chaque question\n" +
			"• `aide` : ce message\n" +
			"Posez la question dans la langue de votre choix : `why is train-7 waiting?`, `train-7 はなぜ待っているの？`, `为什么train-7在等待？` : je réponds dans la langue de la question.\n" +
			"Mentionnez-moi (`@kueuebot train-7`), envoyez-moi un message privé, ou utilisez `/kueue why train-7`, `/kueue jobs`, `/kueue queues`, `/kueue help`.",
		Ja: "ジョブが待機している理由を質問してください。あなたとしてクラスターを読むので、あなたが見られるものだけが見えます。\n" +
			"• `train-7 はなぜ待っているの？` または `train-7` だけ：あなたの Namespace のジョブ\n" +
			"• `train-7 -n team-a`、`team-a/train-7`、`train-7 in ns team-a`：特定の Namespace のジョブ\n" +
			"• `jobset/train-7`、`rayjob my-ray`：特定の種類のジョブ（%[1]s）\n" +
			"• `job/名前`：ジョブ名が `stuck` のような一般的な単語のとき\n" +
			"• `ジョブ一覧`：実行中でないあなたのジョブ。`キュー`：あなたのキュー\n" +
			"• `/kueue notify train-7`（または回答の *開始したら知らせる*）：通知が有効な場合、アドミット、実行、失敗、完了のときに DM を送ります。DM で `stop` と送ると止まります\n" +
			"• `英語で答えて`（または `/kueue language en`、アプリのホームタブ）：回答する言語。`/kueue language auto` で質問ごとの言語に戻ります\n" +
			"• `ヘルプ`：このメッセージ\n" +
			"どの言語でも質問できます：`why is train-7 waiting?`、`pourquoi train-7 attend ?`、`为什么train-7在等待？`。質問された言語で回答します。\n" +
			"メンション（`@kueuebot train-7`）、DM、または `/kueue why train-7`、`/kueue jobs`、`/kueue queues`、`/kueue help` を使ってください。",
		Zh: "问我某个作业为什么在等待。我以你的身份读取集群，所以只能看到你有权看到的内容。\n" +
			"• `为什么train-7在等待？` 或只输入 `train-7`：你的命名空间中的作业\n" +
			"• `train-7 -n team-a`、`team-a/train-7` 或 `train-7 in ns team-a`：某个命名空间中的作业\n" +
			"• `jobset/train-7`、`rayjob my-ray`：指定类型的作业（%[1]s）\n" +
			"• `job/名称`：当作业名称是 `stuck` 这样的常用词时\n" +
			"• `我的作业`：你未在运行的作业；`队列`：你的队列\n" +
			"• `/kueue notify train-7`（或回答中的 *开始时通知我*）：在启用通知的地方，作业被准入、运行、失败或完成时给你发私信；在私信中发送 `stop` 即可停止\n" +
			"• `用英文回答`（或 `/kueue language en`，或应用主页标签）：我回答你所用的语言；`/kueue language auto` 恢复为每个问题所用的语言\n" +
			"• `帮助`：本消息\n" +
			"可以用任何语言提问：`why is train-7 waiting?`、`pourquoi train-7 attend ?`、`train-7 はなぜ待っているの？`：我用你提问的语言回答。\n" +
			"提及我（`@kueuebot train-7`）、给我发私信，或使用 `/kueue why train-7`、`/kueue jobs`、`/kueue queues`、`/kueue help`。"},
	// Language choice.
	i18n.Entry{ID: "bot.lang.set", Args: []i18n.Kind{i18n.KindName},
		En: "From now on I answer you in %[1]s, whatever language you ask in. `/kueue language auto` goes back to the language of each question.",
		Fr: "Désormais, je vous réponds en %[1]s, quelle que soit la langue de la question. `/kueue language auto` revient à la langue de chaque question.",
		Ja: "今後は、どの言語で質問されても%[1]sで回答します。`/kueue language auto` で質問ごとの言語に戻ります。",
		Zh: "从现在起，无论你用什么语言提问，我都用%[1]s回答。`/kueue language auto` 可恢复为每个问题所用的语言。"},
	i18n.Entry{ID: "bot.lang.auto",
		En: "I answer you in the language you ask in again (else your Slack language).",
		Fr: "Je vous réponds de nouveau dans la langue de la question (sinon dans la langue de votre Slack).",
		Ja: "今後は再び、質問された言語（なければ Slack の言語）で回答します。",
		Zh: "我将重新用你提问的语言回答（否则用你的 Slack 语言）。"},
	i18n.Entry{ID: "bot.lang.failed",
		En: "I could not remember your language right now. Please try again later.",
		Fr: "Je n’ai pas pu enregistrer votre langue pour le moment. Réessayez plus tard.",
		Ja: "現在、言語の設定を保存できませんでした。しばらくしてからもう一度お試しください。",
		Zh: "目前无法保存你的语言设置。请稍后重试。"},
	i18n.Entry{ID: "bot.lang.off",
		En: "I cannot remember a language here. I answer in the language you ask in.",
		Fr: "Je ne peux pas enregistrer de langue ici. Je réponds dans la langue de la question.",
		Ja: "ここでは言語を保存できません。質問された言語で回答します。",
		Zh: "这里无法保存语言设置。我用你提问的语言回答。"},
	i18n.Entry{ID: "bot.lang.full",
		En: "I cannot remember more users' languages. Ask your platform team; meanwhile I answer in the language you ask in.",
		Fr: "Je ne peux pas enregistrer la langue d’autres utilisateurs. Prévenez votre équipe plateforme ; en attendant, je réponds dans la langue de la question.",
		Ja: "これ以上ユーザーの言語を保存できません。プラットフォームチームに連絡してください。それまでは質問された言語で回答します。",
		Zh: "无法再保存更多用户的语言设置。请联系平台团队；在此之前，我用你提问的语言回答。"},
	i18n.Entry{ID: "bot.lang.label",
		En: "Answer me in", Fr: "Me répondre en", Ja: "回答の言語", Zh: "回答语言"},
	i18n.Entry{ID: "bot.lang.automatic",
		En: "The language I ask in", Fr: "La langue de ma question", Ja: "質問と同じ言語", Zh: "与提问相同的语言"},
	// App Home.
	i18n.Entry{ID: "bot.home.title",
		En: "Your jobs", Fr: "Vos jobs", Ja: "あなたのジョブ", Zh: "你的作业"},
)
