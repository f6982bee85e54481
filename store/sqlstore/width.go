package sqlstore

import "fmt"

// widthHint adds the fix to a load's error when a value was wider than its
// column (PostgreSQL 22001, MySQL 1406): taobench's schema holds 4096
// bytes in objects.value (TAO's Fig. 6 sizes) and 150 in edges.value, but
// CREATE TABLE IF NOT EXISTS leaves the tables an older taobench created,
// whose objects.value holds 150.
func widthHint(err error) error {
	if c := errCode(err); c != "22001" && c != "1406" {
		return err
	}
	return fmt.Errorf("%w; a value is wider than its column: taobench's objects.value holds 4096 bytes and edges.value 150, "+
		"but tables an older taobench created keep objects.value at 150: load again with --drop to recreate taobench's tables", err)
}
