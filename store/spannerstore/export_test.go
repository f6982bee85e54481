package spannerstore

import (
	"context"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/taobench/taobench/tao"
)

// Finish sets res as Exec does for a server error of the given code
// (ABORTED, DEADLINE_EXCEEDED ...).
func Finish(ctx context.Context, res *tao.Result, code string, edge bool) {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if codeName(c) == code {
			(&DB{}).finish(ctx, res, status.Error(c, strings.ToLower(code)), edge)
			return
		}
	}
	panic("no gRPC code " + code)
}

// Conns is conns: the gRPC connections for so many clients.
func Conns(clients int) int { return conns(clients) }

// FinishEmulator sets res as Exec does for a server error of code c with
// message msg, on the emulator or not.
func FinishEmulator(ctx context.Context, res *tao.Result, c codes.Code, msg string, emulator bool) {
	(&DB{emulator: emulator}).finish(ctx, res, status.Error(c, msg), false)
}
