package run

import "github.com/taobench/taobench/tao"

// countDeletes adds the obj_delete operations of the request about to be
// sent, once however often it is retried: what a run sends bounds what it
// can have deleted, warmup and requests cut short included.
func (c *client) countDeletes() {
	var n int64
	for i := range c.req.Ops {
		if c.req.Ops[i].Kind == tao.ObjDelete {
			n++
		}
	}
	if n > 0 {
		c.deletes.Add(n)
	}
}
