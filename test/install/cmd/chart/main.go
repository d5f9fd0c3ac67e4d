// Command chart lints deploy/helm/kueuebot with Helm's rules and packages
// it as helm package does, into a .tgz (make chart).
//
//	go run ./cmd/chart -o ../../dist
package main

import (
	"flag"
	"fmt"
	"os"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"

	"github.com/kueuebot/kueuebot/test/install"
)

func main() {
	out := flag.String("o", "dist", "folder to write the chart archive to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	kv, err := common.ParseKubeVersion(install.KubeVersion)
	if err != nil {
		return err
	}
	res := lint.RunAll(install.ChartDir(), nil, "kueuebot", lint.WithKubeVersion(kv))
	failed := false
	for _, m := range res.Messages {
		fmt.Fprintln(os.Stderr, m)
		failed = failed || m.Severity >= support.WarningSev
	}
	if failed {
		return fmt.Errorf("helm lint found problems")
	}
	ch, err := install.LoadChart(install.ChartDir())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path, err := chartutil.Save(ch, out)
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}
