package null

import (
	"context"
	"strings"
	"testing"

	"github.com/taobench/taobench/store"
	"github.com/taobench/taobench/tao"
)

func TestOpenAndExec(t *testing.T) {
	ctx := context.Background()
	st, err := store.Default.Open(ctx, "null", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(store.Database); ok {
		t.Error("the null store claims to be a Database")
	}
	req := &tao.Request{Class: tao.Write, Ops: []tao.Op{{Kind: tao.ObjUpdate, ID1: 1}}}
	var res tao.Result
	res.Reset(1)
	st.Exec(ctx, req, &res)
	if res.Outcome != tao.OK || res.Err != nil || res.Ops[0] != (tao.OpResult{}) {
		t.Errorf("Exec changed the result: %+v", res)
	}
}

func TestOpenRejectsAddress(t *testing.T) {
	_, err := store.Default.Open(context.Background(), "null://user:secret@host/x", store.Options{})
	if err == nil || !strings.Contains(err.Error(), "no address") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v, want a refusal without the password", err)
	}
}

func BenchmarkExec(b *testing.B) {
	st := Store{}
	req := &tao.Request{Class: tao.Read, Ops: []tao.Op{{Kind: tao.ObjRead, ID1: 1}}}
	var res tao.Result
	ctx := context.Background()
	for b.Loop() {
		res.Reset(1)
		st.Exec(ctx, req, &res)
	}
}
