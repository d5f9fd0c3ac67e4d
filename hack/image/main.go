// Command image builds kueuebot's container image without a container
// engine: the static binary, a CA bundle and a passwd entry (package
// rootfs) on an empty base, as an OCI image layout with one image per
// platform; pushes such a layout to a registry; and builds the kubectl
// plugin's release archives and krew manifest.
//
//	go run . build -version v0.1.0 -platform linux/amd64,linux/arm64 -o ../../dist/image
//	go run . push -layout ../../dist/image ghcr.io/example/kueuebot:v0.1.0
//	go run . krew -version v0.1.0 -o ../../dist/krew
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: image build|push|krew [flags]")
	}
	switch args[0] {
	case "build":
		fs := flag.NewFlagSet("build", flag.ContinueOnError)
		o := buildOptions{}
		fs.StringVar(&o.repo, "repo", "../..", "the kueuebot repository")
		fs.StringVar(&o.version, "version", "dev", "version stamped into the binary and the image")
		platforms := fs.String("platform", "linux/amd64,linux/arm64", "comma-separated GOOS/GOARCH list")
		fs.StringVar(&o.out, "o", "../../dist/image", "OCI image layout folder to write (replaced)")
		fs.Int64Var(&o.epoch, "epoch", sourceDateEpoch(), "timestamp of every file and of the image (SOURCE_DATE_EPOCH)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		o.platforms = strings.Split(*platforms, ",")
		digest, err := o.build(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("%s: kueuebot %s for %s, index %s\n", o.out, o.version, *platforms, digest)
		return nil
	case "krew":
		fs := flag.NewFlagSet("krew", flag.ContinueOnError)
		repo := fs.String("repo", "../..", "the kueuebot repository")
		tag := fs.String("version", "", "release tag, e.g. v0.1.0 (required)")
		out := fs.String("o", "../../dist/krew", "folder for the archives and the manifest")
		epoch := fs.Int64("epoch", sourceDateEpoch(), "timestamp of the archived files (SOURCE_DATE_EPOCH)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if !strings.HasPrefix(*tag, "v") {
			return fmt.Errorf("-version %q: krew wants a semantic version tag such as v0.1.0", *tag)
		}
		if err := buildKrew(ctx, *repo, *tag, *out, *epoch); err != nil {
			return err
		}
		fmt.Printf("%s: kubectl-kueuebot %s archives and kueuebot.yaml\n", *out, *tag)
		return nil
	case "push":
		fs := flag.NewFlagSet("push", flag.ContinueOnError)
		dir := fs.String("layout", "../../dist/image", "OCI image layout folder written by build")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return errors.New("usage: image push [-layout DIR] REGISTRY/REPOSITORY:TAG")
		}
		digest, err := push(ctx, *dir, fs.Arg(0))
		if err != nil {
			return err
		}
		fmt.Printf("pushed %s@%s\n", fs.Arg(0), digest)
		return nil
	}
	return fmt.Errorf("unknown command %q: want build, push or krew", args[0])
}
