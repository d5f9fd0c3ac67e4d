package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/kueuebot/kueuebot/config"
)

// durationPattern is what time.ParseDuration accepts (without a sign).
const durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// configSchema is the JSON Schema of the config file as the Helm chart's
// config value: every key with its type and description, unknown keys
// rejected, and no secret keys at all, so a token put in values fails at
// helm install, not in a log.
func configSchema(docs typeDocs) (map[string]any, error) {
	s, err := structSchema(docs, reflect.TypeFor[config.Config](), "")
	if err != nil {
		return nil, err
	}
	s["description"] = "The kueuebot configuration file, mounted from a ConfigMap (every key: docs/config.md). " +
		"Slack credentials are not accepted here: they come from the Secret named by slack.existingSecret."
	return s, nil
}

func structSchema(docs typeDocs, t reflect.Type, prefix string) (map[string]any, error) {
	td, ok := docs[t.Name()]
	if !ok {
		return nil, fmt.Errorf("type %s has no source in the config package", t.Name())
	}
	keys := map[string]string{}
	for i := range t.NumField() {
		keys[t.Field(i).Name] = t.Field(i).Tag.Get("mapstructure")
	}
	props := map[string]any{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type == secretType {
			continue
		}
		tag := keys[f.Name]
		var (
			p   map[string]any
			err error
		)
		switch {
		case f.Type.Kind() == reflect.Struct:
			p, err = structSchema(docs, f.Type, prefix+tag+".")
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct:
			p, err = structSchema(docs, f.Type.Elem(), prefix+tag+".")
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			var item map[string]any
			item, err = structSchema(docs, f.Type.Elem(), prefix+tag+"[].")
			p = map[string]any{"type": "array", "items": item}
		default:
			p, err = leafSchema(f.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", prefix, tag, err)
		}
		doc := strings.TrimSpace(td[f.Name])
		if doc == "" && f.Type.Kind() == reflect.Struct {
			doc = docs[f.Type.Name()][""]
		}
		if d := describe(doc, keys); d != "" {
			p["description"] = strings.ReplaceAll(d, "`", "")
		}
		props[tag] = p
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props}, nil
}

func leafSchema(t reflect.Type) (map[string]any, error) {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return map[string]any{"type": "string", "pattern": durationPattern}, nil
	case t.Kind() == reflect.String:
		return map[string]any{"type": "string"}, nil
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case t.Kind() == reflect.Int:
		return map[string]any{"type": "integer"}, nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, nil
	}
	return nil, fmt.Errorf("no JSON Schema for Go type %s: teach hack/configdoc", t)
}

// SpliceSchema returns the chart's values.schema.json with its
// properties.config replaced by the schema generated from the config
// package; the rest of the file is kept (re-indented, keys sorted).
func SpliceSchema(srcDir string, valuesSchema []byte) ([]byte, error) {
	docs, err := readDocs(srcDir)
	if err != nil {
		return nil, err
	}
	cs, err := configSchema(docs)
	if err != nil {
		return nil, err
	}
	var top map[string]any
	if err := json.Unmarshal(valuesSchema, &top); err != nil {
		return nil, fmt.Errorf("values.schema.json: %w", err)
	}
	props, ok := top["properties"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("values.schema.json has no top-level properties")
	}
	props["config"] = cs
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(top); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
