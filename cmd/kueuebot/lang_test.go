package main

import (
	"bytes"
	"strings"
	"testing"
)

// diagnose's --lang, and the locale's language without it.
func TestDiagnoseLang(t *testing.T) {
	dump := "../../deploy/examples/sample-job.yaml"
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		want     string
		wantErr  string
	}{
		{name: "--lang ja", args: []string{"--lang", "ja"}, want: "ExceedsMaxQuota（段階 Admission）"},
		{name: "--lang fr", args: []string{"--lang", "fr"}, want: "ExceedsMaxQuota (étape Admission)"},
		{name: "--lang zh-CN", args: []string{"--lang", "zh-CN"}, want: "ExceedsMaxQuota（阶段 Admission）"},
		{name: "LANG", env: map[string]string{"LANG": "fr_FR.UTF-8"}, want: "Verdict :       ExceedsMaxQuota (étape Admission)"},
		{name: "LC_ALL over LANG", env: map[string]string{"LC_ALL": "ja_JP.UTF-8", "LANG": "fr_FR.UTF-8"}, want: "判定："},
		{name: "LC_MESSAGES over LANG", env: map[string]string{"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "fr_FR.UTF-8"}, want: "结论："},
		{name: "--lang over LANG", env: map[string]string{"LANG": "ja_JP.UTF-8"}, args: []string{"--lang", "en"}, want: "Verdict:       ExceedsMaxQuota (stage Admission)"},
		{name: "C locale is English", env: map[string]string{"LANG": "C"}, want: "Verdict:       ExceedsMaxQuota (stage Admission)"},
		{name: "JSON is the same in every language", args: []string{"--lang", "ja", "-o", "json"}, want: `"code": "ExceedsMaxQuota"`},
		{name: "unknown --lang", args: []string{"--lang", "de"}, wantCode: exitUsage, wantErr: `--lang: "de" is not a language kueuebot answers in`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
				t.Setenv(k, tt.env[k])
			}
			var out, errOut bytes.Buffer
			args := append([]string{"diagnose", "sample-job", "-n", "team-a", "--from-file", dump}, tt.args...)
			code := run(t.Context(), args, strings.NewReader(""), &out, &errOut)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("stdout lacks %q:\n%s", tt.want, out.String())
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr lacks %q: %s", tt.wantErr, errOut.String())
			}
		})
	}
}
