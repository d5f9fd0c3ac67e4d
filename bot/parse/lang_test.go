package parse

import (
	"testing"

	"github.com/kueuebot/kueuebot/i18n"
)

func TestLanguage(t *testing.T) {
	const none = i18n.Lang(255)
	tests := []struct {
		parse func(string) (Request, error)
		in    string
		want  i18n.Lang // none: nothing tells
	}{
		{Text, "why is my job train-7 waiting?", i18n.English},
		{Text, "is sample-job stuck", i18n.English},
		{Text, "pourquoi mon job sample-job est en attente ?", i18n.French},
		{Text, "sample-job est bloqué", i18n.French},
		{Text, "pourquoi train-7 attend ?", i18n.French},
		{Text, "sample-job はなぜ待っているの？", i18n.Japanese},
		{Text, "ジョブ一覧", i18n.Japanese},
		{Text, "为什么sample-job在等待？", i18n.Chinese},
		{Text, "我的作业", i18n.Chinese},
		{Text, "train-7", none},
		{Text, "train-7 -n team-a", none},
		{Text, "help", none},
		{Text, "my jobs", i18n.English},
		{Text, "mes tâches", i18n.French},
		{Text, "/kueue why train-7", none},
		{Command, "why train-7", none},
		{Command, "jobs", none},
		{Command, "pourquoi sample-job attend", i18n.French},
		{Command, "why is train-7 stuck", i18n.English},
		{Shortcut, "CI says train-7 is stuck since this morning", i18n.English},
		{Shortcut, "le job train-7 ne démarre pas", i18n.French},
	}
	for _, tt := range tests {
		r, err := tt.parse(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		got := r.Lang
		if !r.LangKnown {
			got = none
		}
		if got != tt.want {
			t.Errorf("%q: language %v (known %v), want %v", tt.in, r.Lang, r.LangKnown, tt.want)
		}
	}
}

func TestLanguageIntent(t *testing.T) {
	auto := Request{Intent: IntentLanguage}
	lang := func(l i18n.Lang) Request { return Request{Intent: IntentLanguage, Lang: l, LangKnown: true} }
	tests := []struct {
		parse func(string) (Request, error)
		in    string
		want  Request
	}{
		{Text, "answer in English", lang(i18n.English)},
		{Text, "<@U1> please reply in french", lang(i18n.French)},
		{Text, "can you answer in Japanese?", lang(i18n.Japanese)},
		{Text, "réponds en français", lang(i18n.French)},
		{Text, "Réponds-moi en anglais svp", lang(i18n.English)},
		{Text, "répondez en chinois", lang(i18n.Chinese)},
		{Text, "日本語で答えて", lang(i18n.Japanese)},
		{Text, "英語で回答してください", lang(i18n.English)},
		{Text, "用中文回答", lang(i18n.Chinese)},
		{Text, "请用英文回复", lang(i18n.English)},
		{Text, "/kueue language fr", lang(i18n.French)},
		{Command, "language ja", lang(i18n.Japanese)},
		{Command, "lang zh-CN", lang(i18n.Chinese)},
		{Command, "langue anglais", lang(i18n.English)},
		{Command, "language auto", auto},
	}
	for _, tt := range tests {
		got, err := tt.parse(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got.Intent != tt.want.Intent || got.Lang != tt.want.Lang || got.LangKnown != tt.want.LangKnown {
			t.Errorf("%q = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	// Questions that only mention a language are questions.
	for _, in := range []string{"why is english-7 waiting", "train-7 in french-team", "answer-job is stuck"} {
		r, err := Text(in)
		if err != nil || r.Intent == IntentLanguage {
			t.Errorf("%q = %+v, %v; want a question", in, r, err)
		}
	}
}
