package store

// Client is how a store talks to its database, recorded in the results
// (docs/results.md, "client"; result.Client defines the values). An empty
// field is not known.
type Client struct {
	// Writes and Reads are the paths of write and read transactions:
	// "statements", "procedures", "union", "pipeline".
	Writes, Reads string
	// ExecMode is pgx's default_query_exec_mode (PostgreSQL only).
	ExecMode string
	// Pooler is the connection pooler found in front of the server: its
	// name, "none" when looked for and not found, "" when not looked for.
	Pooler string
	// Routines is the schema of routines the store created ("" none).
	Routines string
}

// ClientTeller is a store that says how it talks to its database.
type ClientTeller interface {
	Client() Client
}
