package bot

import "github.com/kueuebot/kueuebot/i18n"

// The catalog entries of several clusters (explain.Fleet) in the bot's
// own answers.
var _ = i18n.Register(
	i18n.Entry{ID: "bot.notify.noCluster", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "I cannot send notifications for jobs in cluster %[1]s: this kueuebot watches jobs only in the clusters its platform team set up for notifications. Ask me again later, e.g. `/kueue why train-7`.",
		Fr: "Je ne peux pas envoyer de notifications pour les jobs du cluster %[1]s : ce kueuebot ne surveille les jobs que dans les clusters que l’équipe plateforme a configurés pour les notifications. Reposez la question plus tard, par exemple `/kueue why train-7`.",
		Ja: "クラスター %[1]s のジョブについては通知を送れません。この kueuebot は、プラットフォームチームが通知用に設定したクラスターのジョブだけを監視します。後でもう一度質問してください。例：`/kueue why train-7`。",
		Zh: "无法为集群 %[1]s 中的作业发送通知：此 kueuebot 只监视平台团队为通知配置的集群中的作业。请稍后再问，例如 `/kueue why train-7`。"},
)
