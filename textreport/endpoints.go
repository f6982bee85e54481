package textreport

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/taobench/taobench/internal/termsafe"
	"github.com/taobench/taobench/metrics"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// writeEndpoints writes the table of a run spread over several endpoints:
// each endpoint's part of the figures above (they add up to them), its
// codes and its server's conflict counters.
func writeEndpoints(b *strings.Builder, e *result.Experiment) {
	if len(e.Endpoints) == 0 {
		return
	}
	b.WriteString("endpoints (each one's clients; the rows add up to the figures above):\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "endpoint\tweight\tclients\trequests\treq/s\tconflicts\terrors\ttimeouts\tp50 ms\tp99 ms")
	for c := range tao.NumClasses {
		fmt.Fprintf(tw, "\tp99 %s", c)
	}
	fmt.Fprint(tw, "\tno service s\t\n")
	for _, ep := range e.Endpoints {
		s := ep.Sum()
		var conflicts int64
		for o := range tao.NumOutcomes {
			if o.IsConflict() {
				conflicts += s.Outcome(o)
			}
		}
		var rate float64
		if e.Measured > 0 {
			rate = float64(s.Requests()) / e.Measured.Seconds()
		}
		all := s.Stats(metrics.All)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%d\t%d\t%d\t%.2f\t%.2f", termsafe.Escape(ep.Name), ep.Weight, ep.Clients, s.Requests(), rate,
			conflicts, s.Outcome(tao.Error), s.Outcome(tao.Timeout), all.P50/1000, all.P99/1000)
		for c := range tao.NumClasses {
			fmt.Fprintf(tw, "\t%.2f", s.Stats(c.String()).P99/1000)
		}
		n, _, known := s.NoService(e.Measured)
		if known {
			fmt.Fprintf(tw, "\t%d\t\n", n)
		} else {
			fmt.Fprint(tw, "\t-\t\n")
		}
	}
	tw.Flush()
	for _, ep := range e.Endpoints {
		var parts []string
		for _, k := range ep.ErrorCodes.Sorted() {
			parts = append(parts, termsafe.Escape(k.String()))
		}
		line := "  " + termsafe.Escape(ep.Name) + ": codes "
		if len(parts) == 0 {
			line += "none"
		} else {
			line += strings.Join(parts, ", ")
		}
		if s := ep.Server; s != nil {
			c := strings.TrimPrefix(serverCounters(s), ", ")
			if c == "" {
				c = "no counter grew"
			}
			line += "; server: " + c
		}
		b.WriteString(line + "\n")
	}
}
