package gencheck

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable prints the rows as a table, one distribution a line, and
// returns how many failed: each row's p-value, the level Holm's step holds
// it to and its Holm-adjusted p-value, which passes at chisquare.Alpha.
func WriteTable(w io.Writer, rows []Row) (failed int) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "distribution\tcategories\tobserved\tchi-square\tdf\tp-value\tlevel\tHolm p\tresult\t")
	for _, r := range rows {
		verdict := "pass"
		switch {
		case r.Skipped:
			verdict = "skipped"
		case !r.Pass:
			verdict = "FAIL"
			failed++
		}
		level, adj := "-", "-"
		if !r.Skipped {
			level, adj = fmt.Sprintf("%.2g", r.Threshold), fmt.Sprintf("%.4f", r.AdjustedP)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%d\t%.4f\t%s\t%s\t%s\t\n", r.Name, r.Categories, r.N, r.ChiSquare, r.DF, r.P, level, adj, verdict)
	}
	tw.Flush()
	return failed
}
