package main

import (
	"fmt"
	"time"

	"github.com/taobench/taobench/store"
)

// closeWait bounds how long a command waits for its store to close.
const closeWait = 500 * time.Millisecond

// closeStore closes st, waiting at most closeWait: a hung server (or a
// client still stuck in a request the run abandoned) can make a driver's
// Close wait for connections that never answer, pgx's pool for 15 s per
// connection, and the results are already out. What is left unclosed the
// operating system closes when the process exits.
func closeStore(e *env, st store.Store, name string) {
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		st.Close()
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-closed:
	case <-t.C:
		fmt.Fprintf(e.stderr, "closing the connections to %s took more than %v: leaving them to the operating system\n", name, closeWait)
	}
}
