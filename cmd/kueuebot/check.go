package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kueuebot/kueuebot/config"
	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/diagnose/fetch"
	"github.com/kueuebot/kueuebot/diagnose/render"
	"github.com/kueuebot/kueuebot/explain"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/rbac"
)

type checkOptions struct {
	file       string
	output     string
	configPath string
	lang       langFlag
	kube       *kubeFlags
}

// maxManifestRead bounds how much of the file or stdin check reads.
const maxManifestRead = 2 << 20

func newCheckCmd() *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check -f FILE",
		Short: "Say whether a job manifest would fit before you submit it",
		Long: `Say whether a job would be admitted now, would wait, or would never be
admitted, before it is submitted: the pod sets Kueue would build for the
manifest (LimitRange defaults and RuntimeClass overhead included), compared
with the quota of the LocalQueue it names (label kueue.x-k8s.io/queue-name),
or of each LocalQueue of the namespace you may read.

Reads the cluster as the kubeconfig user (or --as) and changes nothing.
With --config, checks in the config's clusters[]: the one --cluster names,
else every one where the manifest's LocalQueue exists, and names the
cluster of each answer.`,
		Example: `  kueuebot check -f job.yaml
  kueuebot check -f job.yaml -n team-a --as alice -o json
  kueuebot check -f job.yaml --lang ja
  cat job.yaml | kueuebot check -f -
  kueuebot check -f job.yaml --config config.yaml --cluster gpu-west`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 {
				return usagef("check takes the manifest with -f FILE (or -f - for stdin), not arguments")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd)
		},
	}
	f := cmd.Flags()
	o.kube = newKubeFlags(true)
	o.kube.AddFlags(f)
	f.Lookup("request-timeout").Usage += fmt.Sprintf(" For a check, 0 means the default, %s.", fetch.DefaultTimeout)
	f.StringVarP(&o.file, "filename", "f", "", "the job's manifest (YAML or JSON, one object); - reads stdin")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text, markdown or json")
	f.StringVar(&o.configPath, "config", "", "kueuebot config whose clusters to check in (each cluster's kubeconfig; --cluster then names one of them, else every one where the manifest's LocalQueue exists is checked)")
	o.lang.add(f)
	return cmd
}

func (o *checkOptions) run(ctx context.Context, cmd *cobra.Command) error {
	format, err := render.ParseFormat(o.output)
	if err != nil {
		return usageError{err}
	}
	lang, err := o.lang.lang()
	if err != nil {
		return err
	}
	if o.file == "" {
		return usagef("check needs the manifest: -f FILE, or -f - for stdin")
	}
	in := cmd.InOrStdin()
	if o.file != "-" {
		fh, err := os.Open(o.file)
		if err != nil {
			return usagef("cannot read %s: %v", o.file, err)
		}
		defer fh.Close()
		in = fh
	}
	data, err := io.ReadAll(io.LimitReader(in, maxManifestRead))
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", o.file, err)
	}
	if _, _, err := diagnose.ParseManifest(data); err != nil {
		return usagef("%s: %w", o.file, err) // a bad manifest is the caller's input
	}
	if o.configPath != "" {
		return o.runClusters(ctx, cmd, format, lang, data)
	}
	cfg, err := o.kube.RESTConfig()
	if err != nil {
		return err
	}
	f, err := newFetcher(cfg)
	if err != nil {
		return err
	}
	reader := &explain.ClientReader{Fetcher: f, Default: o.kube.Namespace()}
	res, err := (&explain.Explainer{Reader: reader}).Check(ctx, rbac.Identity{}, explain.CheckRequest{
		Manifest: data, File: o.file, Namespace: o.kube.flagNamespace(),
	})
	if err != nil {
		return fmt.Errorf("cannot check %s: %w", o.file, err)
	}
	return render.WriteCheckWith(cmd.OutOrStdout(), format, &res.Report, render.Options{Lang: lang})
}

// runClusters checks the manifest in the clusters of the config: the one
// --cluster names, else every one where its LocalQueue exists.
func (o *checkOptions) runClusters(ctx context.Context, cmd *cobra.Command, format render.Format, lang i18n.Lang, data []byte) error {
	cfg, err := config.Load(o.configPath)
	if err != nil {
		return err
	}
	if len(cfg.Clusters) == 0 {
		return usagef("%s lists no clusters: drop --config, or add clusters[]", o.configPath)
	}
	fleet, err := cliFleet(cfg, o.kube, o.kube.Namespace())
	if err != nil {
		return err
	}
	req := explain.CheckRequest{Manifest: data, File: o.file, Namespace: o.kube.flagNamespace()}
	if f := o.kube.flags.ClusterName; f != nil {
		req.Cluster = *f
	}
	res, err := fleet.Check(ctx, rbac.Identity{}, req)
	if err != nil {
		return fmt.Errorf("cannot check %s: %w", o.file, err)
	}
	return render.WriteCheckWith(cmd.OutOrStdout(), format, &res.Report, render.Options{Lang: lang})
}
