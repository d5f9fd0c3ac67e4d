package bot

// parseFor parses a question the way its entry point is typed: the slash
// command's verbs (ParseCommand), a message a shortcut was used on
// (ParseShortcut), or free text from a mention, a DM or the terminal
// (ParseRequest). Errors are *ParseError values whose message says what
// to type.
func parseFor(entry Entry, text string) (Request, error) {
	switch entry {
	case EntrySlash:
		return ParseCommand(text)
	case EntryShortcut:
		return ParseShortcut(text)
	default:
		return ParseRequest(text)
	}
}
