package graph

// DegreeAt returns the outdegree of the node of shard s at outdegree rank
// r. A piece's degrees rise evenly over the ranks a shard gives it, so a
// piece a shard holds few nodes of has degrees near its lower bound, not
// spread over the piece: an expectation over the graph's lists takes them
// from here (gen's sized range reads).
func (g *Graph) DegreeAt(s int, r int64) int { return g.degreeAt(s, r) }
