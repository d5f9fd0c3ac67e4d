package diagnose

import (
	"math/big"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// binaryUnits are the binary suffixes, largest first.
var binaryUnits = []struct {
	suffix string
	shift  uint
}{{"Ei", 60}, {"Pi", 50}, {"Ti", 40}, {"Gi", 30}, {"Mi", 20}, {"Ki", 10}}

// FormatQuantity writes q the way people write quantities for kubectl:
// a binary quantity in the largest binary unit that shows it exactly with at
// most two decimals (130816Mi is 127.75Gi), anything else as Kubernetes
// prints it (2500m, 4). The text always parses back to the same value; for
// commands, which must be canonical, use q.String().
func FormatQuantity(q resource.Quantity) string {
	if q.Format != resource.BinarySI {
		return q.String()
	}
	v, ok := q.AsInt64()
	if !ok || v == 0 {
		return q.String()
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	for _, u := range binaryUnits {
		unit := int64(1) << u.shift
		if v < unit {
			continue
		}
		hundredths := new(big.Rat).Mul(big.NewRat(v, unit), big.NewRat(100, 1))
		if !hundredths.IsInt() {
			continue
		}
		s := new(big.Rat).SetFrac(big.NewInt(v), big.NewInt(unit)).FloatString(2)
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
		return sign + s + u.suffix
	}
	return q.String()
}
