// Command kueuebot answers "why is my job waiting?" for clusters that queue
// jobs with Kueue.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "kueuebot: under construction")
	os.Exit(2)
}
