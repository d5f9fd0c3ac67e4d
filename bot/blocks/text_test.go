package blocks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
)

func TestText(t *testing.T) {
	tests := []struct {
		name   string
		blocks []slack.Block
		want   string
	}{
		{"empty", nil, ""},
		{
			"header underlined",
			[]slack.Block{slack.NewHeaderBlock(plain("Hello & <you>"))},
			"Hello & <you>\n=============\n",
		},
		{
			"mrkdwn decoded and code indented",
			[]slack.Block{slack.NewSectionBlock(mrkdwn("*Run* this:\n```\nkubectl get &lt;x&gt;\nmore\n```\nthen wait"), nil, nil)},
			"*Run* this:\n    kubectl get <x>\n    more\nthen wait\n",
		},
		{
			"inline fence",
			[]slack.Block{slack.NewSectionBlock(mrkdwn("a ```b``` c"), nil, nil)},
			"a \n    b\n c\n",
		},
		{
			"unclosed fence kept as text",
			[]slack.Block{slack.NewSectionBlock(mrkdwn("a ``` b"), nil, nil)},
			"a ``` b\n",
		},
		{
			"fields in two columns",
			[]slack.Block{slack.NewSectionBlock(nil, []*slack.TextBlockObject{
				mrkdwn("*Queue:* team-a"), mrkdwn("*Position:* 1st"),
				mrkdwn("*ClusterQueue:* cq"), plain("plain"),
				mrkdwn("odd"),
			}, nil)},
			"*Queue:* team-a     *Position:* 1st\n*ClusterQueue:* cq  plain\nodd\n",
		},
		{
			"multi-line fields one per line",
			[]slack.Block{slack.NewSectionBlock(nil, []*slack.TextBlockObject{mrkdwn("a\nb"), mrkdwn("c")}, nil)},
			"a\nb\nc\n",
		},
		{
			"context and divider",
			[]slack.Block{
				slack.NewContextBlock("", mrkdwn("one"), mrkdwn("&amp;two"), slack.NewImageBlockElement("https://x/i.png", "img")),
				slack.NewDividerBlock(),
			},
			"one | &two | [img]\n\n" + dividerLine + "\n",
		},
		{
			"table aligned",
			[]slack.Block{tableBlock([]string{"Name", "GPUs"}, [][]string{{"a", "8"}, {"longer", "16"}}, []bool{false, true})},
			"Name    GPUs\n------------\na          8\nlonger    16\n",
		},
		{
			"table number and empty cells",
			[]slack.Block{func() slack.Block {
				tb := slack.NewTableBlock("")
				tb.AddRow(slack.NewTableRawTextCell("n"), slack.NewTableRawNumberCell(2.5), nil)
				tb.AddRow(slack.NewTableRawTextCell("m"), slack.NewTableRawNumberCell(3).WithText("three"), slack.NewTableRawTextCell("x"))
				return tb
			}()},
			"n  2.5\n-----------\nm  three  x\n",
		},
		{
			"buttons",
			[]slack.Block{slack.NewActionBlock("", button("Retry", "r", "v"), button("Share", "s", "v"))},
			"[Retry] [Share]\n",
		},
		{
			"rich text",
			[]slack.Block{slack.NewRichTextBlock("", slack.NewRichTextSection(slack.NewRichTextSectionTextElement("rich", nil)))},
			"rich\n",
		},
		{
			"unknown block",
			[]slack.Block{slack.NewImageBlock("https://x/i.png", "alt", "", nil)},
			"[image block]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Text(tt.blocks)); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotice(t *testing.T) {
	m := Notice("Not allowed", "You are not *mapped*.")
	want := "Not allowed\n===========\n\nYou are not *mapped*.\n"
	if diff := cmp.Diff(want, Text(m.Blocks)); diff != "" {
		t.Errorf("Text(Notice) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("Not allowed", m.Text); diff != "" {
		t.Errorf("fallback (-want +got):\n%s", diff)
	}
}
