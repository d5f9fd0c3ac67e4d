package diagnose

import "github.com/kueuebot/kueuebot/i18n"

// Catalog entries of requests.go and podcount.go: what one pod asks and
// where a pod set's count comes from ("(3 pods × 1 cpu)").
var _ = i18n.Register(
	e("diagnose.arith.pods", k(kNum, kM),
		" (%[1]d pods × %[2]s)", " (%[1]d Pods × %[2]s)", "（Pod %[1]d 個 × %[2]s）", "（%[1]d 个 Pod × %[2]s）"),
	e("diagnose.arith.podsWhy", k(kNum, kM, kM),
		" (%[1]d pods × %[2]s: %[3]s)", " (%[1]d Pods × %[2]s : %[3]s)", "（Pod %[1]d 個 × %[2]s：%[3]s）", "（%[1]d 个 Pod × %[2]s：%[3]s）"),
	e("diagnose.arith.podsOrigin", k(kNum, kM, kM),
		" (%[1]d pods × %[2]s; %[1]d pods = %[3]s)", " (%[1]d Pods × %[2]s ; %[1]d Pods = %[3]s)", "（Pod %[1]d 個 × %[2]s。Pod %[1]d 個 = %[3]s）", "（%[1]d 个 Pod × %[2]s；%[1]d 个 Pod = %[3]s）"),
	e("diagnose.arith.podsWhyOrigin", k(kNum, kM, kM, kM),
		" (%[1]d pods × %[2]s: %[3]s; %[1]d pods = %[4]s)", " (%[1]d Pods × %[2]s : %[3]s ; %[1]d Pods = %[4]s)", "（Pod %[1]d 個 × %[2]s：%[3]s。Pod %[1]d 個 = %[4]s）", "（%[1]d 个 Pod × %[2]s：%[3]s；%[1]d 个 Pod = %[4]s）"),
	e("diagnose.arith.sumWhy", k(kM, kM),
		" (%[1]s: %[2]s)", " (%[1]s : %[2]s)", "（%[1]s：%[2]s）", "（%[1]s：%[2]s）"),
	e("diagnose.arith.sum", k(kM), " %[1]s", " %[1]s", "%[1]s", "%[1]s"),
	e("diagnose.arith.why", k(kM), " (%[1]s)", " (%[1]s)", "（%[1]s）", "（%[1]s）"),
	e("diagnose.arith.overhead", k(kQ, kN, kQ),
		"(%[1]s %[2]s + %[3]s pod overhead)", "(%[1]s %[2]s + %[3]s d’overhead de Pod)", "（%[1]s %[2]s + Pod のオーバーヘッド %[3]s）", "（%[1]s %[2]s + Pod 开销 %[3]s）"),
	e("diagnose.arith.overheadRC", k(kQ, kN, kQ, kO),
		"(%[1]s %[2]s + %[3]s overhead of RuntimeClass %[4]s)", "(%[1]s %[2]s + %[3]s d’overhead de la RuntimeClass %[4]s)", "（%[1]s %[2]s + RuntimeClass %[4]s のオーバーヘッド %[3]s）", "（%[1]s %[2]s + RuntimeClass %[4]s 的开销 %[3]s）"),
	e("diagnose.arith.init", k(kN, kQ, kN, kQ),
		"init container %[1]s asks %[2]s %[3]s, more than the main containers (%[4]s %[3]s)",
		"le conteneur d’initialisation %[1]s demande %[2]s %[3]s, plus que les conteneurs principaux (%[4]s %[3]s)",
		"Init コンテナ %[1]s が %[3]s を %[2]s 要求しており、メインコンテナ（%[4]s %[3]s）より多い",
		"Init 容器 %[1]s 请求 %[2]s %[3]s，多于主容器（%[4]s %[3]s）"),
	e("diagnose.arith.defaulted", k(kN, kO, kN),
		"the %[1]s of LimitRange %[2]s, as the pod template asks for no %[3]s",
		"le %[1]s du LimitRange %[2]s, car le modèle de Pod ne demande pas de %[3]s",
		"Pod テンプレートが %[3]s を要求していないので、LimitRange %[2]s の %[1]s",
		"因为 Pod 模板未请求 %[3]s，所以取 LimitRange %[2]s 的 %[1]s"),
	e("diagnose.origin.ray", k(kNum, kNum, kN),
		"replicas %[1]d × numOfHosts %[2]d of worker group %[3]s",
		"replicas %[1]d × numOfHosts %[2]d du groupe de workers %[3]s",
		"ワーカーグループ %[3]s の replicas %[1]d × numOfHosts %[2]d",
		"工作组 %[3]s 的 replicas %[1]d × numOfHosts %[2]d"),
)
