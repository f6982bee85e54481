package gencheck

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable prints the rows as a table, one distribution a line, and
// returns how many failed.
func WriteTable(w io.Writer, rows []Row) (failed int) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "distribution\tcategories\tobserved\tchi-square\tdf\tp-value\tresult\t")
	for _, r := range rows {
		verdict := "pass"
		switch {
		case r.Skipped:
			verdict = "skipped"
		case !r.Pass:
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%d\t%.4f\t%s\t\n", r.Name, r.Categories, r.N, r.ChiSquare, r.DF, r.P, verdict)
	}
	tw.Flush()
	return failed
}
