package main

import (
	"io"
	"os"
	"path/filepath"
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
	root.AddCommand(newDiagnoseCmd(), newCheckCmd(), newDigestCmd(), newChatCmd(), newServeCmd(), newRBACCmd(), newVersionCmd())
	asPlugin(root, displayName(os.Args[0]))
	return root
}

// pluginName is the name kubectl finds the binary by on PATH; `kubectl
// kueuebot ...` then runs it with the rest of the command line.
const pluginName = "kubectl-kueuebot"

// displayName is how the binary was invoked: "kubectl kueuebot" when
// installed as the kubectl plugin kubectl-kueuebot (by krew or by hand),
// "kueuebot" otherwise.
func displayName(argv0 string) string {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if base == pluginName {
		return "kubectl kueuebot"
	}
	return "kueuebot"
}

// asPlugin makes help, usage and examples name the command as it was
// invoked (cobra's display-name annotation).
func asPlugin(root *cobra.Command, name string) {
	if name == root.Name() {
		return
	}
	root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: name}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Example = strings.ReplaceAll(c.Example, "  "+root.Name()+" ", "  "+name+" ")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// isCobraUsage recognises cobra's own argument errors.
func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "accepts ") ||
		strings.HasPrefix(s, "requires ") || strings.HasPrefix(s, "unknown flag") || strings.HasPrefix(s, "unknown shorthand flag")
}
