package blocks

import (
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
)

var _ = i18n.Register(
	i18n.Entry{ID: "blocks.clusters.line", Args: []i18n.Kind{i18n.KindVerbatim, i18n.KindVerbatim, i18n.KindVerbatim, i18n.KindVerbatim},
		En: "• %[1]s: %[2]s in %[3]s (%[4]s)", Fr: "• %[1]s : %[2]s dans %[3]s (%[4]s)",
		Ja: "• %[1]s：%[3]s 内の %[2]s（%[4]s）", Zh: "• %[1]s：%[3]s 中的 %[2]s（%[4]s）"},
	i18n.Entry{ID: "blocks.clusters.which", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "%[1]s is in several clusters. Which one do you mean?", Fr: "%[1]s existe dans plusieurs clusters. Lequel voulez-vous dire ?",
		Ja: "%[1]s は複数のクラスターにあります。どのクラスターのものですか？", Zh: "%[1]s 存在于多个集群中。你指的是哪一个？"},
	i18n.Entry{ID: "blocks.clusters.fallback", Args: []i18n.Kind{i18n.KindVerbatim, i18n.KindVerbatim},
		En: "%[1]s is in several clusters: %[2]s", Fr: "%[1]s existe dans plusieurs clusters : %[2]s",
		Ja: "%[1]s は複数のクラスターにあります：%[2]s", Zh: "%[1]s 存在于多个集群中：%[2]s"},
	i18n.Entry{ID: "blocks.clusters.noAnswer", Args: []i18n.Kind{i18n.KindVerbatim, i18n.KindVerbatim},
		En: "⚠️ %[1]s did not answer: %[2]s", Fr: "⚠️ %[1]s n’a pas répondu : %[2]s",
		Ja: "⚠️ %[1]s から応答がありませんでした：%[2]s", Zh: "⚠️ %[1]s 没有响应：%[2]s"},
	i18n.Entry{ID: "blocks.clusters.cluster",
		En: "Cluster", Fr: "Cluster", Ja: "クラスター", Zh: "集群"},
)

// ActionCluster answers a "which one?" choice: the button of one cluster
// where a job asked about without a cluster was found; its value is the
// JobRef of the job there, cluster included.
const ActionCluster = "kueuebot_cluster"

// ClusterChoice is one cluster a job was found in.
type ClusterChoice struct {
	// Ref is the job there, its Cluster set.
	Ref JobRef
	// Verdict is its verdict there.
	Verdict string
}

// WhichCluster asks which cluster the user means when job is in several:
// one button per cluster (its name, the job's namespace and verdict
// there), and the clusters that could not be searched.
func WhichCluster(job string, choices []ClusterChoice, looks []diagnose.ClusterLook) Message {
	return WhichClusterIn(i18n.English, job, choices, looks)
}

// WhichClusterIn is WhichCluster in language l.
func WhichClusterIn(l i18n.Lang, job string, choices []ClusterChoice, looks []diagnose.ClusterLook) Message {
	var lines []string
	var els []slack.BlockElement
	for _, c := range choices {
		lines = append(lines, tr(l, "blocks.clusters.line", i18n.Verbatim(Code(c.Ref.Cluster)), i18n.Verbatim(Code(c.Ref.Name)), i18n.Verbatim(Code(c.Ref.Namespace)), i18n.Verbatim(Code(c.Verdict))))
		if len(els) < 25 { // Slack's limit of elements per actions block
			els = append(els, slack.NewButtonBlockElement(ActionCluster, c.Ref.String(), plain(truncate(c.Ref.Cluster, 75))))
		}
	}
	body := tr(l, "blocks.clusters.which", i18n.Verbatim(Code(job))) + "\n" + strings.Join(lines, "\n")
	if n := clusterNotes(l, looks); n != "" {
		body += "\n" + n
	}
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(body, MaxSectionText)), nil, nil)}
	if len(els) > 0 {
		bl = append(bl, slack.NewActionBlock("kueuebot_clusters", els...))
	}
	return Message{Text: truncate(tr(l, "blocks.clusters.fallback", i18n.Verbatim(Escape(job)), i18n.Verbatim(strings.Join(clusterNames(choices), ", "))), MaxFallbackText), Blocks: Fit(bl, "")}
}

func clusterNames(choices []ClusterChoice) []string {
	out := make([]string, 0, len(choices))
	for _, c := range choices {
		out = append(out, c.Ref.Cluster)
	}
	return out
}

// clusterNotes names each cluster that could not be searched, one line
// each ("⚠️ gpu-east did not answer: ..."); "" when all were.
func clusterNotes(l i18n.Lang, looks []diagnose.ClusterLook) string {
	var lines []string
	for _, lk := range looks {
		if lk.Error != "" {
			lines = append(lines, tr(l, "blocks.clusters.noAnswer", i18n.Verbatim(Code(lk.Cluster)), i18n.Verbatim(Line(lk.ErrorIn(l)))))
		}
	}
	return strings.Join(lines, "\n")
}

// clusterBlocks say which cluster a report was read in and which clusters
// could not be searched; nil with one cluster.
func clusterBlocks(r diagnose.Report, l i18n.Lang) []slack.Block {
	if r.Cluster == "" && len(r.Clusters) == 0 {
		return nil
	}
	var els []slack.MixedElement
	if r.Cluster != "" {
		els = append(els, mrkdwn("🗺️ *"+tr(l, "blocks.clusters.cluster")+"* "+Code(r.Cluster)))
	}
	if n := clusterNotes(l, r.Clusters); n != "" {
		els = append(els, mrkdwn(truncate(n, MaxContextText)))
	}
	if len(els) == 0 {
		return nil
	}
	return []slack.Block{slack.NewContextBlock("", els...)}
}
