// Package i18n is kueuebot's message catalog: the languages it answers in
// (English, French, Japanese, Chinese), the Message the pure core returns
// instead of text, and rendering a Message in a language. It is a leaf: it
// imports no kueuebot package, so every package may use it.
//
// # Languages
//
// Lang is one of English (the zero value), French, Japanese and Chinese
// (Simplified). Parse reads BCP 47 tags ("ja-JP", "zh-Hans", "zh-CN"),
// POSIX locales ("fr_FR.UTF-8") and language names ("français", "日本語");
// ParseOr falls back; FromEnv reads LC_ALL, LC_MESSAGES, LANG in POSIX order.
// Lang marshals as its code ("fr") in JSON, YAML and config.
//
// # Messages
//
// A Message is an ID and typed arguments:
//
//	msg := i18n.M("diagnose.headline.exceedsMaxQuota",
//		i18n.Ref("job", "team-a", "sample-job"), i18n.Obj("ClusterQueue", "", "cq"))
//	msg.In(i18n.Japanese) // "job/sample-job は ClusterQueue cq が保持できる上限を超えるリソースを要求しています。"
//	msg.String()          // English
//
// Arguments are Object (a Kubernetes object, Obj renders its name, Ref
// kind/name), Name (a pod set, a resource, a label), Qty (a quantity), Num
// (an integer: localized, plural forms select on it), Dur and DurRange
// (durations in the language's units), Verbatim (a command, a field path,
// Kueue's or Kubernetes' own message: never translated), List (And, Or) and
// a nested Message. Names, quantities and verbatim text render as they are in
// every language; Message.Objects lists the objects a message names, so a
// test can check that an answer names the object.
//
// # Declaring entries
//
// A package declares its entries once, at init, with Register (see Entry for
// the text syntax: fmt verbs with explicit indexes, %[n]d for Num, inline
// plural forms {n|one:...|other:...} chosen by CLDR's rules):
//
//	var _ = i18n.Register(
//		i18n.Entry{ID: "bot.notice.busy", Args: []i18n.Kind{i18n.KindDur},
//			En: "I am busy; ask again in %[1]s.",
//			Fr: "Je suis occupé ; redemandez dans %[1]s.",
//			Ja: "ただいま混み合っています。%[1]s後にもう一度お尋ねください。",
//			Zh: "我现在很忙，请在 %[1]s 后再问。"},
//	)
//
// A file of many entries writes them with E and Kinds instead:
// i18n.E(id, i18n.Kinds(i18n.KindDur), en, fr, ja, zh) is the Entry above.
//
// IDs are "<package>.<what>"; keep a package's entries in one file
// (catalog.go) next to the code that uses them. Write every translation for
// the domain, with the terms of Kubernetes' and Kueue's translated
// documentation (ja キュー, クォータ, Pod, ノード; zh 配额, 队列, 节点; fr
// quota, file d'attente, nœud), and keep Kueue's kinds (ClusterQueue,
// LocalQueue, Workload, ResourceFlavor, Cohort, AdmissionCheck) untranslated.
//
// # Rendering
//
// Render(l, m) (or m.In(l)) looks the ID up in l, falls back to English
// where l has no text, renders the arguments in l and formats with
// golang.org/x/text/message. A missing ID renders "!(ID)". Rendering is safe
// for concurrent use; printers are built once per language.
//
// # Tests
//
// Package i18n/i18ntest checks a package's entries (CheckCatalog), its
// messages' arguments (CheckMessage), that no English sentence is built
// outside the catalog (ProseOutsideCatalog) and that a non-English rendering
// holds no English prose (AssertTranslated, Untranslated).
package i18n
