package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/hack/image/rootfs"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, COPY, ...
	args string
}

// stages parses a Dockerfile into its stages' instructions (comments and
// parser directives dropped, "\" continuations joined).
func stages(t *testing.T, path string) [][]instruction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]instruction
	var line strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := strings.TrimSpace(sc.Text())
		if line.Len() == 0 && (s == "" || strings.HasPrefix(s, "#")) {
			continue
		}
		if cont, ok := strings.CutSuffix(s, `\`); ok {
			line.WriteString(cont + " ")
			continue
		}
		line.WriteString(s)
		cmd, args, _ := strings.Cut(line.String(), " ")
		line.Reset()
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			out = append(out, nil)
		}
		if len(out) == 0 {
			t.Fatalf("%s: %s before FROM", path, in.cmd)
		}
		out[len(out)-1] = append(out[len(out)-1], in)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDockerfileBuildsTheSameImage keeps the Dockerfile and the daemonless
// build from drifting: the image stage is an empty base holding only what
// the rootfs command writes (the same rootfs.Files, the same binary build),
// with the same user and entrypoint, and no other instruction; the build
// stage runs that command for the target platform with the version, on the
// Go release go.mod names.
func TestDockerfileBuildsTheSameImage(t *testing.T) {
	st := stages(t, "../../Dockerfile")
	if len(st) != 2 {
		t.Fatalf("%d stages, want build and image", len(st))
	}
	build, img := st[0], st[1]

	gotImage := make([]string, len(img))
	for i, in := range img {
		gotImage[i] = in.cmd + " " + in.args
	}
	entry, err := json.Marshal(rootfs.Entrypoint)
	if err != nil {
		t.Fatal(err)
	}
	wantImage := []string{"FROM scratch", "COPY --from=build /rootfs/ /", "USER " + rootfs.User, "ENTRYPOINT " + string(entry)}
	if !slices.Equal(gotImage, wantImage) {
		t.Errorf("image stage:\n  %s\nwant:\n  %s", strings.Join(gotImage, "\n  "), strings.Join(wantImage, "\n  "))
	}

	if from := build[0].args; !regexp.MustCompile(`^golang:` + regexp.QuoteMeta(goVersion(t)) + `(\.\d+)?(-\S+)? AS build$`).MatchString(from) {
		t.Errorf("build stage FROM %q: want golang:%s (the go.mod's Go) AS build", from, goVersion(t))
	}
	var run string
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, "/cmd/rootfs") {
			run = in.args
		}
	}
	for _, want := range []string{"cd hack/image && go run ./cmd/rootfs", `-version "${VERSION}"`, `-platform "${TARGETOS}/${TARGETARCH}"`, "-o /rootfs"} {
		if !strings.Contains(run, want) {
			t.Errorf("the build stage's rootfs step %q lacks %q", run, want)
		}
	}
}

// goVersion is the major.minor Go release of the product's go.mod.
func goVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	return string(m[1])
}
