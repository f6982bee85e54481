package result

import "fmt"

// Client is how the driver talked to the database: the paths its requests
// took and the runtime it ran on (docs/results.md, "client"). An empty
// field is not known: a store that does not say, or results written before
// taobench recorded it.
type Client struct {
	// Writes is how writes that need a transaction went: "statements"
	// (statement by statement), "procedures" (one CALL of a stored
	// procedure, MariaDB with writes=procedures), "pipeline" (the
	// transaction's statements in one round trip, PostgreSQL).
	Writes string
	// Reads is how read transactions went: "statements", "union" (one
	// UNION ALL statement, MySQL protocol), "pipeline" (PostgreSQL).
	Reads string
	// ExecMode is pgx's default_query_exec_mode (PostgreSQL only).
	ExecMode string
	// RuntimeMonitor is the Go runtime's system monitor: "awake" or
	// "default" (--runtime-monitor).
	RuntimeMonitor string
	// Pooler is the connection pooler found between taobench and the
	// server: its name, "none" when looked for and not found, "" when not
	// looked for.
	Pooler string
	// Routines is the schema holding routines taobench created for the
	// run ("" none).
	Routines string
}

// jsonClient is Client's object; every key always present.
type jsonClient struct {
	Writes         string `json:"writes"`
	Reads          string `json:"reads"`
	ExecMode       string `json:"exec_mode"`
	RuntimeMonitor string `json:"runtime_monitor"`
	Pooler         string `json:"pooler"`
	Routines       string `json:"routines"`
}

// mergeClient is the client of merged runs: the runs' own when they
// agree; results without one (older files) take the others'; runs whose
// clients differ are refused, as they measured different things.
func mergeClient(runs []Named) (Client, error) {
	c, from := Client{}, ""
	for _, r := range runs {
		y := r.Doc.Run.Client
		switch {
		case y == Client{} || y == c:
		case c == Client{}:
			c, from = y, r.Name
		default:
			return Client{}, fmt.Errorf("%s and %s do not belong together: the client differs (%s in %s; %s in %s); "+
				"runs whose requests took different paths do not add up", from, r.Name, c, from, y, r.Name)
		}
	}
	return c, nil
}

// String is the client as the text report's line gives it.
func (c Client) String() string {
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	s := fmt.Sprintf("writes %s, reads %s", or(c.Writes, "unknown"), or(c.Reads, "unknown"))
	if c.ExecMode != "" {
		s += ", exec mode " + c.ExecMode
	}
	s += ", runtime monitor " + or(c.RuntimeMonitor, "unknown")
	switch c.Pooler {
	case "":
		s += ", pooler not looked for"
	case "none":
		s += ", no pooler"
	default:
		s += ", pooler " + c.Pooler
	}
	if c.Routines != "" {
		s += ", routines in schema " + c.Routines
	}
	return s
}
