package parse

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/kueuebot/kueuebot/i18n"
)

// detectLang tells which of kueuebot's four languages a question is
// written in: Japanese when it has kana, Chinese when it has Han characters
// and no kana, French or English by the words that belong to one of them
// only ("pourquoi", "attente", "est-ce" against "why", "waiting", "the").
// ok is false when nothing tells (a bare job name, a slash command's verb
// and a name, "train-7 -n team-a"), so the caller falls back to the user's
// Slack locale. Words of a command ("help", "jobs", "queues", "notify")
// and job names never count: `/kueue jobs` is not English.
func detectLang(toks []token, raw string) (i18n.Lang, bool) {
	var kana, han, hangul bool
	for _, r := range raw {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana = true
		case unicode.Is(unicode.Han, r):
			han = true
		case unicode.Is(unicode.Hangul, r):
			hangul = true
		}
	}
	switch {
	case kana:
		return i18n.Japanese, true
	case han:
		return i18n.Chinese, true
	case hangul:
		return i18n.English, false
	}
	en, fr := 0, 0
	for _, tk := range toks {
		if tk.cjk {
			continue
		}
		w := tk.low
		switch {
		case frenchOnly[w]:
			fr++
		case englishOnly[w]:
			en++
		case classify(tk) == className && strings.ContainsAny(w, "éèêàçôûùœ"):
			fr++
		}
	}
	switch {
	case fr > en:
		return i18n.French, true
	case en > fr:
		return i18n.English, true
	}
	return i18n.English, false
}

// englishOnly and frenchOnly are words of sentences that belong to one of
// the two languages only. Words both use ("a", "on", "me", "job", "ce"),
// command words and kind names are in neither.
//
//nolint:misspell // French words ("attendent") are not English misspellings.
var englishOnly, frenchOnly = setOf(`about after again already am and any are aren't at be been before
	being but by can cannot can't could did didn't do does doesn't don't for forever from get getting going
	has hasn't have how i i'm is isn't it it's its just know long look looks my not now of okay our please
	really right running see seems since so still stuck tell than thanks thank that the their them there
	these they this those to too us very was wasn't waiting waited wait waits we what what's when where which
	while who why will with won't would you your yet hi hello pending queued blocked scheduled answer reply
	respond english french japanese chinese`),
	setOf(`à au aux avec ça comment dans des du elle est est-ce et être explique il ils je les leur lui ma
	mais mes moi mon ne nos notre nous où par pas pourquoi peux peut pouvez pour qu que quel quelle quels
	quelles qui quoi regarde sa ses son sont sur svp toi ton toujours tu une vos votre vous plaît s'il depuis
	longtemps heure heures jour jours va attente attend attendent bloqué bloquée coincé démarre tourne état
	bonjour salut merci aide tâche tâches réponds répondez reponds repondez parle parlez anglais français
	francais japonais chinois`)

func setOf(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// Language names as users write them after "in" / "en", in the four
// languages, to the language.
var langWords = map[string]i18n.Lang{
	"english": i18n.English, "anglais": i18n.English, "en": i18n.English,
	"french": i18n.French, "français": i18n.French, "francais": i18n.French, "fr": i18n.French,
	"japanese": i18n.Japanese, "japonais": i18n.Japanese, "ja": i18n.Japanese,
	"chinese": i18n.Chinese, "chinois": i18n.Chinese, "zh": i18n.Chinese,
}

// autoWords clear a remembered language ("/kueue language auto").
var autoWords = map[string]bool{"auto": true, "automatic": true, "automatique": true, "default": true, "défaut": true}

// answerVerbs start "answer in English", "réponds en français".
var answerVerbs = setOf(`answer answers reply respond speak talk write réponds répondez reponds repondez
	réponds-moi répondez-moi reponds-moi parle parlez parle-moi parlez-moi écris écrivez ecris`)

// cjkLangRequest matches "日本語で答えて", "英語で回答してください" and
// "用中文回答", "请用英文回复".
var (
	jaLangRequest = regexp.MustCompile(`(英語|フランス語|仏語|日本語|中国語)で(答え|こたえ|回答|返事|返信|話し|はなし|お願い|おねがい)`)
	zhLangRequest = regexp.MustCompile(`用(英文|英语|英語|法语|法文|法語|日语|日文|日語|中文|汉语|漢語)(来)?(回答|回复|回覆|答复|答覆|说|說|讲)`)
	cjkLangNames  = map[string]i18n.Lang{
		"英語": i18n.English, "英文": i18n.English, "英语": i18n.English,
		"フランス語": i18n.French, "仏語": i18n.French, "法语": i18n.French, "法文": i18n.French, "法語": i18n.French,
		"日本語": i18n.Japanese, "日语": i18n.Japanese, "日文": i18n.Japanese, "日語": i18n.Japanese,
		"中国語": i18n.Chinese, "中文": i18n.Chinese, "汉语": i18n.Chinese, "漢語": i18n.Chinese,
	}
)

// languageRequest reads a request to answer in a language: "answer in
// English", "reply in French please", "réponds en français", "parlez-moi en
// anglais", "日本語で答えて", "用中文回答", and the command forms "language
// fr", "lang ja", "langue anglais", "language auto" (auto: forget the
// remembered language). ok is false when the text asks for something else.
func languageRequest(toks []token, text string) (r Request, ok bool) {
	if m := jaLangRequest.FindStringSubmatch(text); m != nil {
		return Request{Intent: IntentLanguage, Lang: cjkLangNames[m[1]], LangKnown: true}, true
	}
	if m := zhLangRequest.FindStringSubmatch(text); m != nil {
		return Request{Intent: IntentLanguage, Lang: cjkLangNames[m[1]], LangKnown: true}, true
	}
	var latin []string
	for _, tk := range toks {
		if !tk.cjk {
			latin = append(latin, tk.low)
		}
	}
	if len(latin) == 0 {
		return Request{}, false
	}
	switch latin[0] {
	case "language", "lang", "langue", "langage":
		if len(latin) != 2 {
			return Request{}, false
		}
		if autoWords[latin[1]] {
			return Request{Intent: IntentLanguage}, true
		}
		if l, ok := langWords[latin[1]]; ok {
			return Request{Intent: IntentLanguage, Lang: l, LangKnown: true}, true
		}
		if l, ok := i18n.Parse(latin[1]); ok {
			return Request{Intent: IntentLanguage, Lang: l, LangKnown: true}, true
		}
		return Request{}, false
	}
	// A verb of answering, then "in"/"en" and a language, within a short
	// sentence: "can you answer in english", "réponds-moi en japonais svp".
	if len(latin) > 8 {
		return Request{}, false
	}
	for i, w := range latin {
		if !answerVerbs[w] {
			continue
		}
		for j := i + 1; j+1 < len(latin) && j <= i+4; j++ {
			if latin[j] != "in" && latin[j] != "en" {
				continue
			}
			if l, ok := langWords[latin[j+1]]; ok && latin[j+1] != "en" {
				return Request{Intent: IntentLanguage, Lang: l, LangKnown: true}, true
			}
		}
	}
	return Request{}, false
}
