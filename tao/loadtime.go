package tao

// The times a load writes: Unix seconds in [LoadTimeBase,
// LoadTimeBase+LoadTimeSpan), a year from September 2020; runs write the
// time of the request, later. Here, beside the id layout, so a store can
// tell a loaded row's time from a damaged one without linking the graph.
const (
	LoadTimeBase = 1_600_000_000
	LoadTimeSpan = 365 * 24 * 3600
)
