package main

import (
	"strings"
	"testing"
	"time"

	"github.com/taobench/taobench/bulkload"
)

// TestTextSinkProgress: off a terminal, load progress is a plain line,
// the last one at 100%.
func TestTextSinkProgress(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	s := &textSink{W: &b}
	s.LoadProgress(bulkload.Progress{Nodes: 5, TotalNodes: 10, Rows: 50, Elapsed: time.Second})
	s.LoadProgress(bulkload.Progress{Nodes: 10, TotalNodes: 10, Rows: 100, Elapsed: 2 * time.Second, Done: true})
	s.LoadEnded()
	s.Note("done")
	want := "load:  50% 50 rows 50 rows/s, 1s left\nload: 100% 100 rows 50 rows/s, 0s left\ndone\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
