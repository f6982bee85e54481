package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/taobench/taobench/internal/testenv"
)

// run with both tiers on the machine's Redis: the results carry the
// consistency figures per tier, read_tiers counts as applied, and the
// Redis URL's password appears nowhere. The client cache's entries live
// 30 s, so that its re-reads hit however slowly a loaded machine runs the
// 2 s (with 1 s, at a load of 30, they had expired: no hit).
func TestCLIRunWithTiers(t *testing.T) {
	t.Parallel()
	base := testenv.RedisURL(t)
	prefix := testenv.UniqueName()
	t.Cleanup(func() {
		opts, _ := redis.ParseURL(base)
		c := redis.NewClient(opts)
		defer c.Close()
		ctx := context.Background()
		keys, _ := c.Keys(ctx, prefix+":*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	})
	const pw = "s3cretTierPw"
	cacheURL := strings.Replace(base, "redis://", "redis://:"+pw+"@", 1) + "?prefix=" + prefix
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := cliMust(t, "run", "--db", "sqlite:"+filepath.Join(dir, "t.db"), "--edges", "2000", "--workload", "o",
		"--threads", "4", "--warmup", "1", "--duration", "2", "--cache", cacheURL, "--client-cache-ttl", "30s", "--out", out)
	file, _ := os.ReadFile(out)
	for where, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "results file": string(file)} {
		if strings.Contains(text, pw) {
			t.Errorf("the Redis password appears in %s", where)
		}
	}
	if !strings.Contains(r.stdout, "read tiers (") {
		t.Errorf("the text report has no read tiers:\n%s", r.stdout)
	}
	doc := cliReadJSON(t, out)
	for _, f := range doc.Run["not_applied"].([]any) {
		if f == "read_tiers" {
			t.Errorf("not_applied %v lists read_tiers, which the tiers applied", doc.Run["not_applied"])
		}
	}
	c := cliObj(t, "consistency", doc.Experiments[0]["consistency"])
	tiers := cliObj(t, "consistency.tiers", c["tiers"])
	var served float64
	for _, name := range []string{"client_cache", "tao", "db"} {
		x := cliObj(t, name, tiers[name])
		cliKeys(t, name, x, []string{"drawn", "lookups", "hits", "hit_ratio", "errors", "served", "stale", "stale_share",
			"latency_us", "stale_age_us", "latency_histogram", "stale_age_histogram", "per_second"})
		served += cliNum(t, x, "served")
		// The clients' latency by tier counts the same reads, but for the
		// few whose start and the tier's lie either side of the window's
		// edges.
		byTier := cliObj(t, "latency_by_tier_us", doc.Experiments[0]["latency_by_tier_us"])
		if n, want := cliNum(t, cliObj(t, name, byTier[name]), "count"), cliNum(t, x, "served"); math.Abs(n-want) > 10+want/100 {
			t.Errorf("tier %s: the clients measured %v reads it served, the tier counted %v", name, n, want)
		}
		if name != "db" && cliNum(t, x, "hits") == 0 {
			t.Errorf("tier %s served nothing from its cache", name)
		}
	}
	if served == 0 {
		t.Errorf("no read served by any tier")
	}
}

func TestCLITierFlagsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "t.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--client-cache-size", "10"}, "without --client-cache-ttl"},
		{[]string{"--client-cache-ttl", "-1s"}, "--client-cache-ttl"},
		{[]string{"--cache", "http://x"}, `--cache "http://x": not a cache URL of a registered scheme ("http")`},
		{[]string{"--cache", "redis://:hunter2pw@127.0.0.1:1/0"}, "Redis does not answer"},
		{[]string{"--cache", "redis://127.0.0.1:6379/0?prefix=a*b"}, "prefix"},
		{[]string{"--cache", "redis://127.0.0.1:6379/0?prefill=maybe"}, "prefill"},
	} {
		r := cliRun(t, append([]string{"run", "--db", db, "--edges", "1000", "--duration", "1", "--warmup", "0"}, c.args...)...)
		if r.code != exitBadInput || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stdout+r.stderr, "hunter2pw") {
			t.Errorf("want exit 2 saying %q, no password:\n%s", c.want, r)
		}
	}
}

// sweep, rate and experiment take the tiers' flags as run does: their
// results carry the tiers' figures, and a bad flag is refused with the
// command's name.
func TestCLITiersOnEveryCommand(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "t.db")
	// 1.5 s: at 100 req/s a step then has about 20 reads drawn to the
	// client cache, so a starved process still asks it (at 0.5 s a CI run
	// once issued too few).
	short := []string{"--db", db, "--edges", "1000", "--threads", "2", "--warmup", "0", "--duration", "1.5", "--client-cache-ttl", "1s"}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"sweep", []string{"sweep", "--workload", "o", "--rates", "100"}},
		{"rate", []string{"rate", "--workload", "o", "--sla", "p99<=10s", "--start", "100", "--max-probes", "1"}},
		{"experiment compare", []string{"experiment", "compare", "--workload", "o", "--workload", "a"}},
		// Its steps wrap the store: the tiers' figures must survive that.
		{"experiment precondition-wait", []string{"experiment", "precondition-wait", "--waits", "0,10ms"}},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		r := cliRun(t, append(append(c.args, short...), "--out", out)...)
		if r.code != 0 && !(c.name == "rate" && r.code == exitFailed) {
			t.Errorf("%s: %s", c.name, r)
			continue
		}
		var doc struct{ Experiments []map[string]any }
		if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Experiments) == 0 {
			t.Fatalf("%s: no experiments in %s: %v", c.name, out, err)
		}
		for i, x := range doc.Experiments {
			tiers := cliObj(t, "consistency.tiers", cliObj(t, "consistency", x["consistency"])["tiers"])
			// Workload preconditioned has no read_tiers: its reads go to db.
			if n := cliNum(t, cliObj(t, "db", tiers["db"]), "served"); n == 0 {
				t.Errorf("%s, experiment %d: no read counted", c.name, i)
			}
			if n := cliNum(t, cliObj(t, "client_cache", tiers["client_cache"]), "lookups"); n == 0 && !strings.Contains(c.name, "precondition") {
				t.Errorf("%s, experiment %d: the client cache was never asked", c.name, i)
			}
		}
		bad := cliRun(t, append(append(c.args, short...), "--client-cache-size", "-1")...)
		if bad.code != exitBadInput || !strings.Contains(bad.stderr, c.name+": --client-cache-size -1") {
			t.Errorf("%s with a negative --client-cache-size: want exit 2 naming the command:\n%s", c.name, bad)
		}
	}
}

// Two databases holding the same graph, run one after the other with one
// Redis and one prefix (the default-prefix case): each run's keys
// are under its own database's scope, so neither serves the other's
// entries.
func TestCLITwoDatabasesOneRedis(t *testing.T) {
	t.Parallel()
	base := testenv.RedisURL(t)
	prefix := testenv.UniqueName()
	opts, err := redis.ParseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	ctx := context.Background()
	keys := func() []string {
		k, err := c.Keys(ctx, prefix+":*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	t.Cleanup(func() {
		if k := keys(); len(k) > 0 {
			c.Del(ctx, k...)
		}
		c.Close()
	})
	dir := t.TempDir()
	for _, name := range []string{"a.db", "b.db"} {
		cliMust(t, "run", "--db", "sqlite:"+filepath.Join(dir, name), "--edges", "2000", "--workload", "o",
			"--threads", "2", "--warmup", "0", "--duration", "1", "--cache", base+"?prefix="+prefix)
	}
	scopes := map[string]int{}
	for _, k := range keys() {
		scope, _, _ := strings.Cut(strings.TrimPrefix(k, prefix+":"), ":")
		scopes[scope]++
	}
	if len(scopes) != 2 {
		t.Errorf("the keys of two databases' runs fall under %d namespaces %v after the prefix; want one per database", len(scopes), scopes)
	}
}
