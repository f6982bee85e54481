package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/taobench/taobench/internal/testenv"
	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/session"
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// TestErrorCodesAtServers: conflicts provoked on a real PostgreSQL and
// MariaDB (writes holding their locks 1.5 s on a small graph, past the
// store's 1 s lock wait) reach the results with the server's own codes,
// one per conflicting attempt, and are written to the JSON.
func TestErrorCodesAtServers(t *testing.T) {
	t.Parallel() // its clients mostly wait on each other's locks
	for _, tc := range []struct {
		name  string
		url   func(t *testing.T) string
		codes []string // lock wait timeout, deadlock (and PostgreSQL's serialization failure)
	}{
		{"postgres", func(t *testing.T) string { return testenv.FreshPostgres(t, testenv.PostgresURL(t)) }, []string{"55P03", "40P01", "40001"}},
		{"mysql", func(t *testing.T) string { return testenv.FreshMySQL(t, testenv.MySQLURL(t)) }, []string{"1205", "1213"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := open(t, tc.url(t), session.Options{Clients: 16})
			w := *builtin(t, "a")
			w.LockHold = workload.Dist[time.Duration]{Values: []time.Duration{1500 * time.Millisecond}, Weights: []float64{1}}
			// Writes only, so that 16 clients meet on the rows of a small
			// graph often enough for conflicts to be sure.
			w.Requests = workload.Dist[tao.Class]{Values: []tao.Class{tao.Write, tao.WriteTxn}, Weights: []float64{1, 1}}
			g, _, err := s.Graph(ctx, &w, session.GraphSpec{Edges: 200})
			if err != nil {
				t.Fatal(err)
			}
			done, err := s.Run(ctx, session.Plan{
				Config:      run.Config{Workload: &w, Graph: g, Seed: 3, Retries: 0, Drain: 5 * time.Second},
				Experiments: []run.Experiment{{Threads: 16, Duration: 4 * time.Second}},
			})
			if err != nil {
				t.Fatal(err)
			}
			e := done[0]
			sum := e.Sum()
			conflicts := sum.Outcome(tao.ConflictObject) + sum.Outcome(tao.ConflictAssociation)
			if conflicts == 0 {
				t.Fatalf("no conflicts in %d requests: the test provoked none", sum.Requests())
			}
			var coded int64
			for k, n := range e.ErrorCodes {
				if k.Outcome.IsConflict() {
					coded += n
					if !slices.Contains(tc.codes, k.Code) {
						t.Errorf("%d %s attempts with code %q; want one of %s's conflict codes %v", n, k.Outcome, k.Code, tc.name, tc.codes)
					}
				}
			}
			// No retries: each conflicting attempt is a conflicting request.
			if coded != conflicts {
				t.Errorf("%d conflicts counted by code, %d conflict outcomes: %v", coded, conflicts, e.ErrorCodes)
			}
			var b bytes.Buffer
			if err := result.WriteJSON(&b, nil, done); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Experiments []struct {
					ErrorCodes map[string]map[string]int64 `json:"error_codes"`
				} `json:"experiments"`
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var inJSON int64
			for _, o := range []string{"conflict_object", "conflict_association"} {
				for _, n := range doc.Experiments[0].ErrorCodes[o] {
					inJSON += n
				}
			}
			if inJSON != conflicts {
				t.Errorf("the JSON's error_codes hold %d conflicts, want %d: %v", inJSON, conflicts, doc.Experiments[0].ErrorCodes)
			}
			t.Logf("%s: %d requests, %d conflicts by code %v", tc.name, sum.Requests(), conflicts, e.ErrorCodes)
		})
	}
}
