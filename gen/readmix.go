package gen

import (
	"github.com/taobench/taobench/tao"
	"github.com/taobench/taobench/workload"
)

// readMix sets the pickers of TAO's read API and sizes (TAO §7): the
// limits of list reads (Fig. 5) and the sizes of objects' values apart
// from associations' (Fig. 6). A workload that gives neither draws
// nothing more than before, so its request stream is unchanged.
func (p *Plan) readMix(w *workload.Workload) error {
	var err error
	p.limits = picker[int]{def: p.limit}
	if len(w.RangeLimits.Values) > 0 {
		if p.limits, err = newPicker(w.RangeLimits, p.limit); err != nil {
			return err
		}
	}
	p.objSizes = p.sizes
	if len(w.ObjectPayloadSizes.Values) > 0 {
		if p.objSizes, err = newPicker(w.ObjectPayloadSizes, 0); err != nil {
			return err
		}
	}
	p.targets.CountNonZero = w.CountNonZero
	return nil
}

// writeObject gives an object op a time after every loaded row and a
// payload of an object's size.
func (gen *Generator) writeObject(op *tao.Op) {
	gen.clock++
	op.Time = gen.thi + gen.clock
	op.Payload = gen.g.Payload(gen.objSizes.draw(&gen.rng), gen.rng.Uint64())
}
