package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kueue := "unknown"
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, d := range bi.Deps {
					if d.Path == "sigs.k8s.io/kueue" {
						kueue = d.Version
					}
				}
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "kueuebot %s (Kueue API %s)\n", version, kueue)
			return err
		},
	}
}
