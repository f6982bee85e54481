package session

import (
	"context"
	"fmt"

	"github.com/taobench/taobench/result"
	"github.com/taobench/taobench/store"
)

// recordDeletes adds the obj_delete operations experiment res sent to
// the count the database keeps (store.DeleteRecorder), which bounds the
// missing objects validate and check credit to runs; nothing on a store
// that keeps none, or a replica. A run that sent none records 0: the
// count then exists, and validate credits runs no more. A count that cannot
// be recorded (within endTimeout: a hung server must not hold the results)
// is said: later validations may then fail objects this run deleted.
func (s *Session) recordDeletes(ctx context.Context, res *result.Experiment) {
	dr, ok := s.st.(store.DeleteRecorder)
	if !ok || s.opts.ReadOnly || res == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout(res))
	defer cancel()
	if err := dr.AddObjDeletes(ctx, res.ObjDeletes); err != nil {
		s.sink.Note(fmt.Sprintf("%s: could not record this run's %d obj_delete operations, so validate and check may count objects it deleted as missing: %v", s.opts.Name, res.ObjDeletes, err))
	}
}
