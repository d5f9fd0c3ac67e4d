// Package render turns a diagnose.Report into text (as readable as kubectl
// describe), Markdown, or JSON. Rendering is pure and deterministic: the same
// report always renders to the same bytes.
package render
