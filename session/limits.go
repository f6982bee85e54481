package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/tao"
)

// Limits are what a run's results must show of the database's service for
// the run to count as healthy: a run that measured an outage says so, in
// its exit status too, rather than reporting healthy averages.
type Limits struct {
	// MaxLostPct is the largest share, in percent, of an experiment's
	// measured requests that may end in error or timeout (conflicts left
	// after all retries are contention, not losses).
	MaxLostPct float64
	// MaxStall is the longest stretch of the measured window in which
	// requests were due and the database answered none, measured to 0.1 s
	// (metrics.Summary.LongestStall; whole seconds for a summary read from
	// a file).
	MaxStall time.Duration
}

// LimitError names the experiments whose results break the limits; the
// results themselves stand and were reported.
type LimitError struct{ Breaches []string }

func (e *LimitError) Error() string { return strings.Join(e.Breaches, "; ") }

// Check returns a *LimitError for the experiments of exps that lost too
// many requests, went too long without an answer, or measured no request
// at all; nil when none did.
func (l Limits) Check(exps []*result.Experiment) error {
	var msgs []string
	for i, x := range exps {
		if x == nil {
			continue
		}
		s := x.Sum()
		ops := s.Requests()
		if ops == 0 && !x.Interrupted {
			msgs = append(msgs, fmt.Sprintf("experiment %d measured no request in its %s s window: the database answered nothing, or the window was too short for any request to end", i+1, fmtSeconds(x.Measured)))
			continue
		}
		if lost, _ := s.Lost(); ops > 0 && lost > 0 {
			if pct := float64(lost) / float64(ops) * 100; pct > l.MaxLostPct {
				msgs = append(msgs, fmt.Sprintf("experiment %d lost %.2f%% of its requests (%d of %d: errors %d, timeouts %d), more than Limits.MaxLostPct %s%%; the results count them (see \"first lost request\" for why), or raise Limits.MaxLostPct",
					i+1, pct, lost, ops, s.Outcome(tao.Error), s.Outcome(tao.Timeout), fmtPct(l.MaxLostPct)))
			}
		}
		if stall, known := s.LongestStall(x.Measured); known && stall > l.MaxStall {
			n, _, _ := x.NoService()
			msgs = append(msgs, fmt.Sprintf("experiment %d had no service for %.1f s in a row (%d whole seconds of its %s s window in all): requests were due and the database answered none, longer than Limits.MaxStall %s; raise Limits.MaxStall to accept it",
				i+1, stall.Seconds(), n, fmtSeconds(x.Measured), l.MaxStall))
		}
		// Each replica on its own: one that was promoted no longer
		// replays the primary, and one out of rotation longer than the
		// stall allowed is an outage of a server the run was asked to
		// read, though its reads went elsewhere and none was lost.
		if c := x.Consistency; c != nil {
			for _, r := range c.Replicas {
				if r.Promoted() {
					msgs = append(msgs, fmt.Sprintf("experiment %d: replica %s left recovery at %s (promoted, or no longer read-only): it no longer replays the primary, so it was read as a replica no more (its row says promoted; its reads before count in db_replica); give TierSpec.Replicas a standby of the session's database",
						i+1, r.Name, r.PromotedAt.UTC().Format("15:04:05.000")))
				}
				// Whole seconds, as for the database: a replica probed every
				// second is out a little over one for a single failure.
				if r.Longest.Truncate(time.Second) > l.MaxStall {
					msgs = append(msgs, fmt.Sprintf("experiment %d: replica %s stopped answering and was out of rotation for %.1f s in a row (%.1f s in all, %d time(s)), longer than Limits.MaxStall %s: %d of its reads failed and went to %s; raise Limits.MaxStall to accept it",
						i+1, r.Name, r.Longest.Seconds(), r.Outage.Seconds(), r.Outages, l.MaxStall, r.Errors, replicaFallback(c)))
				}
			}
		}
		// Each endpoint on its own too: a node that went away while the
		// others answered is an outage of its clients.
		for _, ep := range x.Endpoints {
			if stall, known := ep.Sum().LongestStall(x.Measured); known && stall > l.MaxStall {
				n, _, _ := ep.Sum().NoService(x.Measured)
				msgs = append(msgs, fmt.Sprintf("experiment %d: endpoint %s had no service for %.1f s in a row (%d whole seconds of the %s s window in all): its clients' requests were due and it answered none, longer than Limits.MaxStall %s; raise Limits.MaxStall to accept it",
					i+1, ep.Name, stall.Seconds(), n, fmtSeconds(x.Measured), l.MaxStall))
			}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return &LimitError{msgs}
}

// replicaFallback says where a failed replica's reads went.
func replicaFallback(c *result.Consistency) string {
	if c.Tiers[tao.TierDB].Lookups > 0 {
		return "the primary"
	}
	return "the other replicas"
}

func fmtSeconds(d time.Duration) string {
	return strings.TrimSuffix(fmt.Sprintf("%.3f", d.Seconds()), ".000")
}

func fmtPct(p float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", p), "0"), ".")
}
