package store

import "strings"

// The one rule for URL parameters, whatever the scheme or flag (--db,
// --replica, --cache, SPANNER_EMULATOR_HOST): a parameter is shown by its
// name, and its value only when the name is on harmlessParams and the
// value looks like a setting (harmlessValue). A value can be a secret
// under any name (Spanner's credentials=, SQLite's _pragma=key(...), a
// driver's token), so the list says what may show, not what may not.
//
// The list holds the settings the stores and the cache tier read that name
// a mode, a size, a duration, a path or a name: TLS modes and certificate
// paths (not the key's password), pool sizes and timeouts, schemas,
// taobench's own options. Keys are matched without regard to case.
var harmlessParams = func() map[string]bool {
	m := map[string]bool{}
	for _, group := range []string{
		// PostgreSQL (pgx and libpq) and its runtime parameters taobench sets.
		"sslmode sslrootcert sslcert sslkey sslsni sslnegotiation connect_timeout application_name search_path " +
			"target_session_attrs load_balance_hosts host port user dbname krbsrvname " +
			"pool_max_conns pool_min_conns pool_min_idle_conns pool_max_conn_lifetime pool_max_conn_lifetime_jitter " +
			"pool_max_conn_idle_time pool_health_check_period default_query_exec_mode statement_cache_capacity " +
			"description_cache_capacity min_read_buffer_size lock_timeout statement_timeout " +
			"idle_in_transaction_session_timeout default_transaction_isolation timezone client_encoding",
		// MySQL, MariaDB, TiDB (go-sql-driver/mysql, server variables, and
		// taobench's writes=statements|procedures).
		"tls timeout readtimeout writetimeout parsetime charset collation loc allownativepasswords " +
			"allowcleartextpasswords allowoldpasswords allowfallbacktoplaintext interpolateparams multistatements " +
			"maxallowedpacket checkconnliveness clientfoundrows columnswithalias rejectreadonly " +
			"innodb_lock_wait_timeout tidb_txn_mode transaction_isolation tx_isolation sql_mode autocommit " +
			"time_zone net_write_timeout wait_timeout writes",
		// The cache tier: taobench's own options, then go-redis's.
		"prefix expire prefill ttl db protocol client_name max_retries min_retry_backoff max_retry_backoff " +
			"dial_timeout read_timeout write_timeout pool_fifo pool_size pool_timeout min_idle_conns " +
			"max_idle_conns max_active_conns conn_max_idle_time conn_max_lifetime idle_timeout max_conn_age skip_verify",
		// The null store.
		"delay stall every",
	} {
		for _, k := range strings.Fields(group) {
			m[k] = true
		}
	}
	return m
}()

// HarmlessParam reports whether the value of URL parameter key may be
// shown (when HarmlessValue also holds for it).
func HarmlessParam(key string) bool { return harmlessParams[strings.ToLower(key)] }

// HarmlessValue reports whether v, a parameter's value as written, looks
// like a setting (a word, number, duration, mode or path, at most 100
// bytes) rather than text that could hide another secret or end the
// parameter early (@ # ? & ; = % quotes, spaces).
func HarmlessValue(v string) bool {
	if len(v) > 100 {
		return false
	}
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.ContainsRune("._:/,+-", c):
		default:
			return false
		}
	}
	return true
}

// showsValue reports whether the value v of parameter key may be shown.
func showsValue(key, v string) bool { return HarmlessParam(key) && HarmlessValue(v) }

// ParamNames returns the names of the parameters of query (as written
// after a URL's ?), comma-separated, for a message that refuses them: a
// message names parameters, not their values.
func ParamNames(query string) string {
	var names []string
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, Redact("?" + k)[1:])
	}
	return strings.Join(names, ", ")
}
