// Command rtt measures the floor under taobench's CPU per request: the
// client CPU time (user + system, from getrusage) that the cheapest possible
// request costs, one prepared "SELECT $1" round trip, with the same drivers
// and pools taobench uses (pgx's pool for postgres://, database/sql with
// go-sql-driver/mysql for mysql://). bench/cpu.sh runs it beside taobench,
// so the figure taobench reaches can be read against what one round trip
// costs on the machine. Like taobench it keeps the runtime's monitor thread
// awake (internal/sysmon), so the floor is not paying a cost taobench does not.
//
// On PostgreSQL two more floors take the driver away, with the protocol
// encoded and parsed by hand and every answer checked: --raw, a goroutine
// per client on Go's network poller (the runtime's own cost), and --loop,
// one OS thread polling every connection with epoll (pgbench -j 1's
// architecture). The figure is printed in all and in user space and in the
// kernel apart.
//
//	go run ./bench/rtt --db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' --clients 16 --duration 10s
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/taobench/taobench/internal/sysmon"
)

func main() {
	sysmon.Awake()
	db := flag.String("db", "", "postgres://… or mysql://user@host:port/db")
	clients := flag.Int("clients", 16, "concurrent clients, each with its own connection")
	duration := flag.Duration("duration", 10*time.Second, "how long to measure")
	loop := flag.Bool("loop", false, "postgres:// only: instead of a goroutine per client on pgx's pool, one OS thread polling every connection with epoll, the protocol encoded by hand (pgbench -j 1's architecture)")
	raw := flag.Bool("raw", false, "postgres:// only: a goroutine per client, the protocol encoded by hand as --loop does, on Go's network poller")
	stmt := flag.String("query", selectOne, "with --raw or --loop: the statement, of one bigint parameter; its answers are counted, and checked only for the default")
	keys := flag.String("keys", "", "with --raw or --loop: a file of the parameter's values, one integer per line, taken in turn (default: the request's number)")
	flag.Parse()
	if *db == "" || *clients < 1 || *duration <= 0 {
		fmt.Fprintln(os.Stderr, "rtt: give --db URL, --clients >= 1 and a positive --duration")
		os.Exit(2)
	}
	if (*stmt != selectOne || *keys != "") && !*loop && !*raw {
		fmt.Fprintln(os.Stderr, "rtt: --query and --keys go with --raw or --loop")
		os.Exit(2)
	}
	if *loop || *raw {
		if !strings.HasPrefix(*db, "postgres://") && !strings.HasPrefix(*db, "postgresql://") {
			fmt.Fprintln(os.Stderr, "rtt: --raw and --loop speak PostgreSQL's protocol: give a postgres:// URL")
			os.Exit(2)
		}
		t := target{url: *db, query: *stmt}
		if *keys != "" {
			var err error
			if t.keys, err = readKeys(*keys); err != nil {
				fmt.Fprintln(os.Stderr, "rtt: --keys:", err)
				os.Exit(2)
			}
		}
		f := eventLoop
		if *raw {
			f = goroutines
		}
		before := cpu()
		n, wall, err := f(t, *clients, *duration)
		used := cpu().minus(before)
		check(err)
		report(n, wall, used)
		return
	}
	ctx := context.Background()
	var query func(ctx context.Context, i int64) error
	switch {
	case strings.HasPrefix(*db, "postgres://") || strings.HasPrefix(*db, "postgresql://"):
		cfg, err := pgxpool.ParseConfig(*db)
		check(err)
		cfg.MaxConns = int32(*clients)
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		check(err)
		defer pool.Close()
		query = func(ctx context.Context, i int64) error {
			var v int64
			return pool.QueryRow(ctx, "SELECT $1::bigint", i).Scan(&v)
		}
	case strings.HasPrefix(*db, "mysql://"):
		rest := strings.TrimPrefix(*db, "mysql://")
		at := strings.LastIndex(rest, "@")
		slash := strings.Index(rest[at+1:], "/")
		if at < 0 || slash < 0 {
			fmt.Fprintln(os.Stderr, "rtt: use mysql://user@host:port/database")
			os.Exit(2)
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, _ = strings.Cut(rest[:at], ":")
		cfg.Net, cfg.Addr, cfg.DBName = "tcp", rest[at+1:at+1+slash], rest[at+2+slash:]
		conn, err := mysql.NewConnector(cfg)
		check(err)
		pool := sql.OpenDB(conn)
		defer pool.Close()
		pool.SetMaxOpenConns(*clients)
		pool.SetMaxIdleConns(*clients)
		st, err := pool.PrepareContext(ctx, "SELECT ?")
		check(err)
		query = func(ctx context.Context, i int64) error {
			var v int64
			return st.QueryRowContext(ctx, i).Scan(&v)
		}
	default:
		fmt.Fprintln(os.Stderr, "rtt: --db must be a postgres:// or mysql:// URL")
		os.Exit(2)
	}
	check(query(ctx, 0)) // connect before measuring

	var n atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *clients)
	start, before := time.Now(), cpu()
	end := start.Add(*duration)
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(c); time.Now().Before(end); i++ {
				if err := query(ctx, i); err != nil {
					errs <- err
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	used, wall := cpu().minus(before), time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		fmt.Fprintln(os.Stderr, "rtt: query failed:", err)
		os.Exit(1)
	}
	report(n.Load(), wall, used)
}

// report prints the figures; bench/cpu.sh reads the number before the
// first "us", the user-space one before "us-user" and the kernel's before
// "us-system".
func report(n int64, wall time.Duration, used usage) {
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(n) }
	total := used.user + used.sys
	fmt.Printf("round trips: %d in %.1f s (%.0f/s); client CPU %.2f s: %.2f us per round trip (%.2f us-user, %.2f us-system)\n",
		n, wall.Seconds(), float64(n)/wall.Seconds(), total.Seconds(), per(total), per(used.user), per(used.sys))
}

// readKeys reads a file of integers, one per line.
func readKeys(path string) ([]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys []int64
	for i, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		k, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %q is not an integer", path, i+1, line)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s holds no integers", path)
	}
	return keys, nil
}

// usage is the CPU time this process has used, in user space and in the
// kernel.
type usage struct{ user, sys time.Duration }

func cpu() usage {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return usage{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}

func (u usage) minus(v usage) usage { return usage{u.user - v.user, u.sys - v.sys} }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtt:", err)
		os.Exit(1)
	}
}
