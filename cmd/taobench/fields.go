package main

import "strings"

// fieldFlags turns the fields session's errors and notes name (a program
// that embeds it sets fields, not flags) into the flags that set them,
// for a person at the command line.
var fieldFlags = strings.NewReplacer(
	"Limits.MaxLostPct", "--max-error-rate",
	"Limits.MaxStall", "--max-stall",
	"SweepSpec.MaxP99", "--max-p99",
	"SweepSpec.Start", "--start",
	"SweepSpec.Factor", "--factor",
	"SweepSpec.MaxSteps", "--max-steps",
	"RateSpec.Start", "--start",
	"RateSpec.Factor", "--factor",
	"RateSpec.Precision", "--precision",
	"RateSpec.MaxProbes", "--max-probes",
	"RateSpec.SLAs", "--sla",
	"GraphSpec.Edges", "--edges",
	"LoadSpec.Workload", "--workload",
	"LoadSpec.Edges", "--edges",
	"LoadSpec.Seed", "--seed",
	"LoadSpec.Drop", "--drop",
	"LoadSpec.Part", "--driver",
	"Session.Load", "taobench load",
	"run.Config.Seed", "--seed",
	"run.Config.InjectLatency", "--inject-latency",
	"Options.Split.Driver", "--driver",
	"Options.Split.Start", "--start-at",
	"Options.More", "--db",
	"Open's URL", "--db",
	"TierSpec.Replicas", "--replica",
	"TierSpec.Cache", "--cache",
	"TierSpec.TTL", "--client-cache-ttl",
	"TierSpec.Size", "--client-cache-size",
	"TierSpec.Locality", "--client-cache-locality",
)

// flagWords is msg, from the session, in the command line's words.
func flagWords(msg string) string { return fieldFlags.Replace(msg) }
