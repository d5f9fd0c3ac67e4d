package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "kueuebot",
		Short:         "Explains why a Kueue-queued job is waiting",
		Long:          "kueuebot answers \"why is my job waiting?\" for Kubernetes clusters that queue jobs with Kueue.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newDiagnoseCmd(), newChatCmd(), newServeCmd(), newVersionCmd())
	return root
}

// isCobraUsage recognises cobra's own argument errors.
func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "accepts ") ||
		strings.HasPrefix(s, "requires ") || strings.HasPrefix(s, "unknown flag") || strings.HasPrefix(s, "unknown shorthand flag")
}
