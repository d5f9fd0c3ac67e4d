package blocks

import "github.com/kueuebot/kueuebot/i18n"

// Catalog entries of the worker clusters' sections.
var _ = i18n.Register(
	i18n.Entry{ID: "blocks.worker.on", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "On worker cluster %[1]s", Fr: "Sur le cluster worker %[1]s", Ja: "ワーカークラスター %[1]s", Zh: "在工作集群 %[1]s 上"},
	i18n.Entry{ID: "blocks.worker.whatToDo", Args: []i18n.Kind{i18n.KindVerbatim},
		En: "What to do on %[1]s", Fr: "Que faire sur %[1]s", Ja: "%[1]s での対処法", Zh: "在 %[1]s 上怎么办"},
)
