#ifndef DEVICECTL_CSQLITE_SHIM_H
#define DEVICECTL_CSQLITE_SHIM_H
// SQLite from Debian (libsqlite3-dev): MobileSync backups index their files in Manifest.db.
#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: defensive mode (no writes to the schema or shadow tables)
// and an untrusted schema (no SQL functions run from views or triggers a hostile file defines).
static inline void csqlite_harden(sqlite3 *db) {
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}
#endif
