package main

import (
	"os"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/kinds"
)

// TestKindsInHelpAndREADME: the kinds diagnose's help and the README name
// are the kind registry's, the one list of kinds.
func TestKindsInHelpAndREADME(t *testing.T) {
	sentence := strings.Join(strings.Fields(kindSentence()), " ")
	for _, k := range kinds.All() {
		if !strings.Contains(sentence, k.Kind) {
			t.Errorf("help sentence %q does not name %s", sentence, k.Kind)
		}
	}
	help := strings.Join(strings.Fields(newDiagnoseCmd().Long), " ")
	if !strings.Contains(help, sentence) {
		t.Errorf("diagnose --help does not carry %q:\n%s", sentence, help)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), sentence) {
		t.Errorf("README.md does not carry the kind list of diagnose --help: %q", sentence)
	}
}
