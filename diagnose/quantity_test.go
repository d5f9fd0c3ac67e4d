package diagnose

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestFormatQuantity(t *testing.T) {
	for in, want := range map[string]string{
		"130816Mi": "127.75Gi",
		"64Gi":     "64Gi",
		"1536Mi":   "1.5Gi",
		"1500Mi":   "1500Mi", // 1.46484375Gi has more than two decimals
		"1Ki":      "1Ki",
		"1000":     "1k",
		"2500m":    "2500m",
		"4":        "4",
		"100G":     "100G",
		"0":        "0",
		"1Ti":      "1Ti",
		"1025Ki":   "1025Ki",
	} {
		q := resource.MustParse(in)
		got := FormatQuantity(q)
		if got != want {
			t.Errorf("FormatQuantity(%s) = %q, want %q", in, got, want)
		}
		if back := resource.MustParse(got); back.Cmp(q) != 0 {
			t.Errorf("%q does not parse back to %s", got, in)
		}
	}
	// Kueue's units come back as BinarySI through quantity().
	if got := fmtQ("memory", 137170518016); got != "127.75Gi" {
		t.Errorf("fmtQ(memory) = %q, want 127.75Gi", got)
	}
}
