package blocks

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/kueuebot/kueuebot/diagnose"
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
	var lines []string
	var els []slack.BlockElement
	for _, c := range choices {
		lines = append(lines, fmt.Sprintf("• %s: %s in %s (%s)", Code(c.Ref.Cluster), Code(c.Ref.Name), Code(c.Ref.Namespace), Code(c.Verdict)))
		if len(els) < 25 { // Slack's limit of elements per actions block
			els = append(els, slack.NewButtonBlockElement(ActionCluster, c.Ref.String(), plain(truncate(c.Ref.Cluster, 75))))
		}
	}
	body := fmt.Sprintf("%s is in several clusters. Which one do you mean?\n%s", Code(job), strings.Join(lines, "\n"))
	if n := clusterNotes(looks); n != "" {
		body += "\n" + n
	}
	bl := []slack.Block{slack.NewSectionBlock(mrkdwn(truncate(body, MaxSectionText)), nil, nil)}
	if len(els) > 0 {
		bl = append(bl, slack.NewActionBlock("kueuebot_clusters", els...))
	}
	return Message{Text: truncate(Escape(job)+" is in several clusters: "+strings.Join(clusterNames(choices), ", "), MaxFallbackText), Blocks: Fit(bl, "")}
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
func clusterNotes(looks []diagnose.ClusterLook) string {
	var lines []string
	for _, l := range looks {
		if l.Error != "" {
			lines = append(lines, fmt.Sprintf("⚠️ %s did not answer: %s", Code(l.Cluster), Line(l.Error)))
		}
	}
	return strings.Join(lines, "\n")
}

// clusterBlocks say which cluster a report was read in and which clusters
// could not be searched; nil with one cluster.
func clusterBlocks(r diagnose.Report) []slack.Block {
	if r.Cluster == "" && len(r.Clusters) == 0 {
		return nil
	}
	var els []slack.MixedElement
	if r.Cluster != "" {
		els = append(els, mrkdwn("🗺️ *Cluster* "+Code(r.Cluster)))
	}
	if n := clusterNotes(r.Clusters); n != "" {
		els = append(els, mrkdwn(truncate(n, MaxContextText)))
	}
	if len(els) == 0 {
		return nil
	}
	return []slack.Block{slack.NewContextBlock("", els...)}
}
