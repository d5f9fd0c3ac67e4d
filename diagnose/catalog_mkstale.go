package diagnose

import "github.com/kueuebot/kueuebot/i18n"

// Catalog entries of mkstale.go: an eviction that waits forever for a
// MultiKueue job's copied status.
var _ = i18n.Register(
	opt(2, "diagnose.mkStale.headline", k(kO, kNum, kO),
		"%[1]s is stuck in its eviction: Kueue waits for it to stop, but its status still counts {2|one:%[2]d active pod|other:%[2]d active pods}, copied from a MultiKueue worker whose copy is gone, so it keeps its quota in ClusterQueue %[3]s and is not queued again.",
		"%[1]s est bloqué dans son éviction : Kueue attend qu’il s’arrête, mais son statut compte encore {2|one:%[2]d Pod actif|other:%[2]d Pods actifs}, recopié d’un worker MultiKueue dont la copie n’existe plus ; il garde donc son quota dans la ClusterQueue %[3]s et n’est pas remis en file d’attente.",
		"%[1]s は退避の途中で止まっています：Kueue は停止を待っていますが、ステータスには MultiKueue のワーカー（そのコピーはもうありません）からコピーされたアクティブな Pod が %[2]d 個残っているため、ClusterQueue %[3]s のクォータを確保したまま再びキューに入りません。",
		"%[1]s 卡在驱逐过程中：Kueue 在等待它停止，但其状态仍显示 %[2]d 个活动 Pod（从一个副本已不存在的 MultiKueue 工作集群复制而来），因此它继续占用 ClusterQueue %[3]s 的配额，且不会被重新排队。"),
	opt(4, "diagnose.mkStale.detail", k(kO, kN, kV, kV, kNum),
		"Kueue evicted Workload %[1]s (%[2]s) %[3]s ago and releases its quota only once the job reports no active pods (%[4]s = %[5]d). On this manager cluster only MultiKueue writes the job's status, from the worker's copy, and that copy was deleted before its stop was copied back: nothing will update it (a known Kueue v0.17 bug, kubernetes-sigs/kueue#15380).",
		"Kueue a évincé le Workload %[1]s (%[2]s) il y a %[3]s et ne libère son quota qu’une fois que le job ne compte plus aucun Pod actif (%[4]s = %[5]d). Sur ce cluster manager, seul MultiKueue écrit le statut du job, depuis la copie du worker, et cette copie a été supprimée avant que son arrêt soit recopié : rien ne le mettra à jour (un bogue connu de Kueue v0.17, kubernetes-sigs/kueue#15380).",
		"Kueue は %[3]s 前に Workload %[1]s を退避しました（%[2]s）。ジョブのアクティブな Pod がなくなった時点で（%[4]s = %[5]d）クォータを解放します。このマネージャークラスターでは、ジョブのステータスを書くのはワーカーのコピーから写す MultiKueue だけですが、そのコピーは停止が写される前に削除されました：もう誰も更新しません（Kueue v0.17 の既知のバグ、kubernetes-sigs/kueue#15380）。",
		"Kueue 在 %[3]s 前驱逐了 Workload %[1]s（%[2]s），只有当作业不再报告活动 Pod 时（%[4]s = %[5]d）才会释放其配额。在本管理集群上，只有 MultiKueue 会根据工作集群上的副本写入作业状态，而该副本在其停止状态被复制回来之前就已被删除：不会再有任何组件更新它（Kueue v0.17 的已知缺陷，kubernetes-sigs/kueue#15380）。"),
	e("diagnose.mkStale.remedy.clear", k(kO, kV),
		"Ask the platform team to set the stale %[2]s of %[1]s to 0 (and status.ready), through its status subresource: Kueue then releases its quota and queues it again.",
		"Demandez à l’équipe plateforme de remettre à 0 le champ périmé %[2]s de %[1]s (et status.ready), par sa sous-ressource status : Kueue libère alors son quota et le remet en file d’attente.",
		"プラットフォームチームに、%[1]s の古い %[2]s（と status.ready）を status サブリソースで 0 にするよう依頼してください：Kueue はクォータを解放し、再びキューに入れます。",
		"请平台团队通过 status 子资源将 %[1]s 过期的 %[2]s（以及 status.ready）设为 0：Kueue 随后会释放其配额并将其重新排队。"),
	e("diagnose.mkStale.remedy.recreate", k(kO),
		"Or delete the job and submit it again: that frees its quota in ClusterQueue %[1]s at once, and the new one waits in the queue from the end.",
		"Ou supprimez le job et soumettez-le à nouveau : son quota dans la ClusterQueue %[1]s est libéré aussitôt, et le nouveau attend dans la file en partant de la fin.",
		"または、ジョブを削除して再投入してください：ClusterQueue %[1]s のクォータはすぐに解放され、新しいジョブはキューの最後から待ちます。",
		"或者删除该作业并重新提交：这会立即释放其在 ClusterQueue %[1]s 中的配额，新作业从队尾开始排队。"),
)
