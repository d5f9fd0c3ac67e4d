package parse

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/kueuebot/kueuebot/kinds"
)

// slackRef matches Slack's angle-bracket markup: <@U123>, <@U123|name>,
// <#C123|general>, <!channel>, <!subteam^S1|@team>, <mailto:a@b|a@b>,
// <https://x|label>, <https://x>.
var slackRef = regexp.MustCompile(`<([^<>]*)>`)

// StripSlackMarkup removes what Slack adds around a question: user, channel
// and group mentions and special commands disappear; links become their
// label (or their address); backticks go; the HTML entities Slack encodes
// (&amp; &lt; &gt;) are decoded last, so that a decoded "<" can never form
// new markup.
func StripSlackMarkup(s string) string {
	s = slackRef.ReplaceAllStringFunc(s, func(m string) string {
		inner := m[1 : len(m)-1]
		if inner == "" {
			return " "
		}
		switch inner[0] {
		case '@', '#', '!':
			return " "
		}
		if _, label, ok := strings.Cut(inner, "|"); ok {
			return " " + label + " "
		}
		return " " + inner + " "
	})
	s = strings.ReplaceAll(s, "`", " ")
	return entityDecoder.Replace(s)
}

// entityDecoder decodes the three entities Slack encodes.
var entityDecoder = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// token is one word of a question.
type token struct {
	// text is the word as typed (normalized), for names and namespaces.
	text string
	// low is text in lower case, for keyword lookups.
	low string
	// cjk marks a keyword found inside Chinese, Japanese or Korean text.
	// Such a token is never a name.
	cjk bool
}

// normalize folds what users type in any language into the forms the
// parser knows: NFKC turns full-width letters, digits and punctuation
// (ｔｒａｉｎ－７, ？, （）, the ideographic space) into their ASCII
// forms and half-width katakana into full-width; curly apostrophes become
// straight ones; invisible format characters (zero-width spaces, marks)
// are dropped.
func normalize(s string) string {
	s = norm.NFKC.String(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '’' || r == '‘' || r == 'ʼ':
			return '\''
		case unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
}

// isCJK reports whether r is written in Chinese, Japanese or Korean script.
// Such text has no spaces between words, so a job name is found wherever
// the script changes ("为什么sample-job在等待").
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー' || r == '々' || r == '〆'
}

// isCJKPunct reports whether r is punctuation of CJK text that NFKC leaves
// as it is (。、「」『』【】〈〉《》〔〕・〜 ...): it separates words.
func isCJKPunct(r rune) bool {
	return r >= 0x3000 && r <= 0x303f && !isCJK(r) || r == '・' || r >= 0xff5f && r <= 0xff65
}

// separators end a word even without a space after them ("train-7,train-8",
// and the full-width ，；？！ that NFKC folds into these).
const separators = ",;?!"

// trimmed are the characters sentences and Slack formatting put around a
// word: they are cut from both ends of a Latin word.
const trimmed = `?!.,;:"'()[]{}*_~“”«»‹›¿¡…`

// elision matches the French (and Italian) elided articles and pronouns
// glued to the next word: l'attente, d'attente, qu'est-ce, jusqu'à.
var elision = regexp.MustCompile(`^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)'`)

// tokenize splits a question into words. White space separates words in
// every language; inside a word, a change between CJK script and any other
// script separates too, so a name glued to Chinese or Japanese text is
// found. Links' addresses are dropped. CJK text is scanned for the keywords of cjkWords (longest match
// first); other CJK characters never name anything and are dropped. Latin
// words lose the punctuation around them, a possessive 's and an elided
// French article.
func tokenize(s string) []token {
	var out []token
	var latin, cjk strings.Builder
	flushLatin := func() {
		if latin.Len() == 0 {
			return
		}
		f := strings.Trim(latin.String(), trimmed)
		latin.Reset()
		if strings.Contains(f, "://") {
			return // a link's address never names a job
		}
		f = strings.TrimLeft(f, "@") // "@kueuebot" typed as text
		f = strings.TrimSuffix(f, "'s")
		if loc := elision.FindStringIndex(strings.ToLower(f)); loc != nil && loc[1] < len(f) {
			f = f[loc[1]:]
		}
		f = strings.Trim(f, trimmed)
		if f != "" {
			out = append(out, token{text: f, low: strings.ToLower(f)})
		}
	}
	flushCJK := func() {
		if cjk.Len() == 0 {
			return
		}
		out = append(out, cjkKeywords(cjk.String())...)
		cjk.Reset()
	}
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || isCJKPunct(r) || strings.ContainsRune(separators, r):
			flushLatin()
			flushCJK()
		case isCJK(r):
			flushLatin()
			cjk.WriteRune(r)
		default:
			flushCJK()
			latin.WriteRune(r)
		}
	}
	flushLatin()
	flushCJK()
	return out
}

// cjkKeywords finds the keywords of cjkWords in a run of CJK text, longest
// match first, left to right.
func cjkKeywords(run string) []token {
	var out []token
	rs := []rune(run)
	for i := 0; i < len(rs); {
		n := 0
		for l := min(maxCJKWord, len(rs)-i); l > 0; l-- {
			if _, ok := cjkWords[string(rs[i:i+l])]; ok {
				n = l
				break
			}
		}
		if n == 0 {
			i++
			continue
		}
		w := string(rs[i : i+n])
		out = append(out, token{text: w, low: w, cjk: true})
		i += n
	}
	return out
}

// class is what a word means to the parser.
type class int

const (
	// className: the word may be a name.
	className class = iota
	// classFiller: a word of a sentence that names nothing ("why", "is",
	// "pourquoi"). A job called like one is asked about as "job/NAME".
	classFiller
	// classGreeting: "hi", "thanks", "bonjour": a message of only these
	// gets the help.
	classGreeting
	// classTopic: the message is about jobs waiting ("stuck", "pending",
	// "attente", "等待") but names none.
	classTopic
	// classJob: a generic word for a job ("job", "tâche", "ジョブ",
	// "作业"); a name may follow.
	classJob
	// classList: "list", "一覧", "列表": the user wants a list.
	classList
	// classHelp: "help", "aide", "ヘルプ", "帮助".
	classHelp
	// classNamespace: "namespace", "ns", "命名空间": a namespace follows.
	classNamespace
	// classIn: "in", "dans": a namespace may follow.
	classIn
	// classKind: a job kind Kueue manages (jobKinds).
	classKind
	// classQueue: a queue word (queueKinds).
	classQueue
	// classUnsupported: a Kubernetes kind kueuebot does not read
	// (unsupportedKinds).
	classUnsupported
)

// classify returns the class of a lower-case word.
func classify(tk token) class {
	w := tk.low
	if tk.cjk {
		return cjkWords[w]
	}
	switch {
	case jobKinds[w] != "":
		return classKind
	case queueKinds[w] != "":
		return classQueue
	case unsupportedKinds[w] != "":
		return classUnsupported
	}
	return latinWords[w]
}

// jobKinds maps the words users type for job kinds (lower case: the kind,
// its plural and short names, from the kind registry) to Kubernetes kinds.
// "job" and "jobs" are not in it: in a sentence they are generic ("my job
// train-7") and only mean batch/v1 Job in the kind/name form.
var jobKinds = func() map[string]string {
	m := map[string]string{}
	for _, k := range kinds.All() {
		m[strings.ToLower(k.Kind)] = k.Kind
		for _, n := range k.Names {
			m[n] = k.Kind
		}
	}
	delete(m, "job")
	delete(m, "jobs")
	return m
}()

// queueKinds maps queue words to queue kinds.
var queueKinds = map[string]string{
	"queue": "LocalQueue", "queues": "LocalQueue",
	"localqueue": "LocalQueue", "localqueues": "LocalQueue", "lq": "LocalQueue",
	"clusterqueue": "ClusterQueue", "clusterqueues": "ClusterQueue", "cq": "ClusterQueue",
	// French: "ma file d'attente", "mes files".
	"file": "LocalQueue", "files": "LocalQueue",
}

// unsupportedKinds are Kubernetes kinds users may name that kueuebot does
// not read. (StatefulSets and Deployments are kinds of the registry: Kueue
// integrates them, and the registry has their words.)
var unsupportedKinds = map[string]string{
	"replicaset": "ReplicaSet", "replicasets": "ReplicaSet", "rs": "ReplicaSet",
	"daemonset": "DaemonSet", "daemonsets": "DaemonSet", "ds": "DaemonSet",
	"cronjob": "CronJob", "cronjobs": "CronJob", "cj": "CronJob",
	"sparkapplication": "SparkApplication", "sparkapplications": "SparkApplication",
}

// kindOf resolves the kind part of "kind/name": a kind word, possibly
// plural and group-qualified ("jobs.batch", "jobsets.jobset.x-k8s.io").
// unsupported is set for a known Kubernetes kind kueuebot does not read.
func kindOf(s string) (kind string, queue bool, unsupported string) {
	s = strings.ToLower(s)
	if k, ok := kinds.Lookup(s); ok && s != "" {
		return k.Kind, false, ""
	}
	word, _, _ := strings.Cut(s, ".")
	if q := queueKinds[word]; q != "" && word != "file" && word != "files" {
		return q, true, ""
	}
	return "", false, unsupportedKinds[word]
}

// words fills a class map from space-separated lists.
func words(m map[string]class, c class, lists ...string) {
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] = c
		}
	}
}

// latinWords classifies the words of languages written with spaces
// (English, French; a few German and Spanish ones). A word that is not
// here may be a name.
//
//nolint:misspell // French and German words ("attendent") are not English misspellings.
var latinWords = func() map[string]class {
	m := map[string]class{}
	words(m, classFiller,
		// English
		`a about admit admitted after again ages all already am an and any anything are aren't at
		be been before being bot but by can cannot can't check come could day days did didn't
		diagnose do does doesn't doesnt don't explain for forever from get getting going gone
		guys has hasn't hasnt have having her here hey his hour hours how i i'd i'm idea im is
		isn't isnt it it's its just k8s know kubernetes kueue kueuebot last let long look looks
		lot lots me mine minute minutes more morning much my need not now of ok okay on one or our
		out over place please pls plz position really right run runs schedule scheduled
		scheduling see seems show since so some start started starting still such tell than
		that the their them then there these they this those to today tonight too up us very
		was wasn't we week what what's whats when where which while who why will with won't
		wont would yesterday you your /kueue /kueuebot`,
		// French
		`à a ai au aux avec c ça ca ce ces cet cette comment d dans de des dire dis donc du
		elle en encore est est-ce et être explique expliquer il ils j je l la le les leur
		leurs lui m ma mais me mes moi mon n ne ni nos notre nous on ou où par pas passe
		peux peut pouvez pour pourquoi qu que quel quelle quels quelles qui quoi regarde
		s sa se ses si son sont sur svp t ta te tes toi ton toujours tu un une voir vos
		votre vous y plaît s'il
		depuis longtemps heure heures minutes jour jours va vas aller`,
		// German and Spanish, a few
		`warum wieso ist mein meine mein dein der die das und noch wartet
		por qué que mi mis es está esta el la los las y`)
	words(m, classGreeting,
		`hi hello hey hiya thanks thank thx cheers yo bonjour salut merci coucou hallo danke hola gracias`)
	words(m, classTopic,
		`wait waits waiting waited stuck pending queued blocked hung hanging slow late status
		state quota admission running
		attente attend attendent bloqué bloquée bloqués bloque coincé coincée démarre démarré
		tourne état statut`)
	words(m, classJob, `job jobs tâche tâches tache taches travail travaux`)
	words(m, classList, `list ls liste lister afficher affiche montre montrer`)
	words(m, classHelp, `help -h --help usage commands aide aidez-moi ayuda hilfe`)
	words(m, classNamespace, `namespace namespaces ns`)
	words(m, classIn, `in dans`)
	return m
}()

// cjkWords are the keywords found inside Chinese, Japanese and Korean text.
// Other CJK characters name nothing and are dropped.
var cjkWords = func() map[string]class {
	m := map[string]class{}
	words(m, classJob,
		`ジョブ 作业 作業 任务 任務 工作 작업`)
	words(m, classQueue,
		`キュー 队列 隊列 佇列 큐 대기열`)
	words(m, classList,
		`一覧 一览 列表 列出 リスト 显示 顯示 表示 查看 목록`)
	words(m, classHelp,
		`ヘルプ 使い方 帮助 幫助 用法 怎么用 도움말 도움`)
	words(m, classNamespace,
		`名前空間 ネームスペース 命名空间 命名空間 名称空间 名字空间 네임스페이스`)
	words(m, classTopic,
		`待っ 待ち 待機 保留 止まっ 詰まっ 等待 排队 排隊 卡住 挂起 掛起 阻塞 대기`)
	words(m, classGreeting,
		`こんにちは ありがとう 你好 您好 谢谢 謝謝 안녕하세요 감사합니다`)
	return m
}()

// maxCJKWord is the length of the longest key of cjkWords, in runes.
var maxCJKWord = func() int {
	n := 0
	for w := range cjkWords {
		n = max(n, utf8.RuneCountInString(w))
	}
	return n
}()
