// Package gencheck checks offline that the generator draws every parameter
// from its configured distribution: it generates requests without a
// database, counts what they contain and compares the counts with the
// workload's weights by Pearson's chi-square goodness-of-fit test (as the
// TAOBench paper validates its workloads, §5).
package gencheck
