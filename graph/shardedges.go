package graph

// ShardExpectedEdges returns the expected forward edges the load writes
// with id1 on shard s: the exact outdegree sum of its nodes, less empty
// slots. The edges of a shard follow its nodes' outdegrees, not its
// primary_shards weight: the outdegree cap the smallest shards allow
// keeps their lists short.
func (g *Graph) ShardExpectedEdges(s int) float64 {
	if s < 0 || s >= g.shards {
		return 0
	}
	sum, start := int64(0), int64(0)
	for k, end := range g.rankEnd[s] {
		sum += g.pieceDegreeSum(k, end-start)
		start = end
	}
	return float64(sum) * (1 - g.empty)
}
