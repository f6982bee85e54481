//go:build unix

package tier_test

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tier"
	"github.com/taobench/taobench/workload"
)

// BenchmarkCheckerPostgres measures what the staleness checker alone costs
// a driver on PostgreSQL (docs/tiers.md, "The self-check in every run"):
// for workloads o and a on a fresh database of the machine's server, 1-s
// closed-loop experiments of 16 clients alternate with and without the
// checker (4 b.N of them, ABBA), and the medians of the process's CPU time per request are
// reported (plain-cpu-ns/req, checked-cpu-ns/req) with their difference
// (cost-%). CPU time per request is far less sensitive than throughput to
// other work on the machine, but not blind to it: run it with -count and
// compare.
func BenchmarkCheckerPostgres(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"o", "a"} {
		b.Run(name, func(b *testing.B) {
			w, err := workload.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			s, err := session.Open(ctx, testenv.FreshPostgres(b, testenv.PostgresURL(b)), session.Options{Name: "checker bench", Clients: 16})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			g, _, err := s.Graph(ctx, w, session.GraphSpec{Edges: 20000})
			if err != nil {
				b.Fatal(err)
			}
			ts, err := tier.Open(ctx, s.Store(), tier.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer ts.Close()
			var plain, checked []float64
			b.ResetTimer()
			for i := range 4 * max(b.N, 2) {
				// ABBA: a drift (the database grows with a's writes) favours neither.
				check := i%4 == 1 || i%4 == 2
				st := s.Store()
				if check {
					st = ts.Front()
				}
				cpu := cpuNow(b)
				res, err := run.Do(ctx, run.Config{Store: st, Workload: w, Graph: g, Run: int64(i + 1), Seed: uint64(i)},
					run.Experiment{Threads: 16, Duration: time.Second})
				if err != nil {
					b.Fatal(err)
				}
				per := float64(cpuNow(b)-cpu) / float64(res.Sum().Requests())
				if check {
					checked = append(checked, per)
					if c := res.Consistency; c == nil || !c.CheckOnly || c.Tiers[2].Served == 0 || c.Tiers[2].Stale != 0 {
						b.Fatalf("checker: %+v; want database reads checked, none stale", c)
					}
				} else {
					plain = append(plain, per)
				}
			}
			b.Logf("cpu ns/req without the checker %.0f, with it %.0f", plain, checked)
			p, c := median(plain), median(checked)
			b.ReportMetric(p, "plain-cpu-ns/req")
			b.ReportMetric(c, "checked-cpu-ns/req")
			b.ReportMetric(100*(c-p)/p, "cost-%")
		})
	}
}

func cpuNow(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}
