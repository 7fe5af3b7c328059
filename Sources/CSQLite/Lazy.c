// Lazy: SQLite loaded by the first call into it, not at start-up (see CSupportLazy.h and CArchive's Lazy.c). Each
// function below has the prototype sqlite3.h declares and forwards to SQLite's own; they are hidden, so SQLite's
// calls to its own functions never come back through them.
#pragma GCC visibility push(hidden)
#include "shim.h"
#include "CSupportLazy.h"

static struct csupport_library sqlite = {{"libsqlite3.so.0", "libsqlite3.so"}, "libsqlite3-0", 0};

CSUPPORT_LAZY(sqlite, int, sqlite3_bind_blob, (sqlite3_stmt* p0, int p1, const void* p2, int p3, void(*p4)(void*)), (p0, p1, p2, p3, p4))
CSUPPORT_LAZY(sqlite, int, sqlite3_bind_int, (sqlite3_stmt* p0, int p1, int p2), (p0, p1, p2))
CSUPPORT_LAZY(sqlite, int, sqlite3_bind_text, (sqlite3_stmt* p0, int p1, const char* p2, int p3, void(*p4)(void*)), (p0, p1, p2, p3, p4))
CSUPPORT_LAZY(sqlite, int, sqlite3_clear_bindings, (sqlite3_stmt* p0), (p0))
CSUPPORT_LAZY(sqlite, int, sqlite3_close, (sqlite3* p0), (p0))
CSUPPORT_LAZY(sqlite, int, sqlite3_close_v2, (sqlite3* p0), (p0))
CSUPPORT_LAZY(sqlite, const void *, sqlite3_column_blob, (sqlite3_stmt* p0, int p1), (p0, p1))
CSUPPORT_LAZY(sqlite, int, sqlite3_column_bytes, (sqlite3_stmt* p0, int p1), (p0, p1))
CSUPPORT_LAZY(sqlite, sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt* p0, int p1), (p0, p1))
CSUPPORT_LAZY(sqlite, const unsigned char *, sqlite3_column_text, (sqlite3_stmt* p0, int p1), (p0, p1))
CSUPPORT_LAZY(sqlite, int, sqlite3_column_type, (sqlite3_stmt* p0, int p1), (p0, p1))
CSUPPORT_LAZY(sqlite, const char *, sqlite3_errmsg, (sqlite3* p0), (p0))
CSUPPORT_LAZY(sqlite, const char *, sqlite3_errstr, (int p0), (p0))
CSUPPORT_LAZY(sqlite, int, sqlite3_exec, (sqlite3* p0, const char * p1, int (*p2)(void*,int,char**,char**), void * p3, char ** p4), (p0, p1, p2, p3, p4))
CSUPPORT_LAZY(sqlite, int, sqlite3_extended_result_codes, (sqlite3* p0, int p1), (p0, p1))
CSUPPORT_LAZY(sqlite, int, sqlite3_finalize, (sqlite3_stmt * p0), (p0))
CSUPPORT_LAZY_VOID(sqlite, sqlite3_free, (void* p0), (p0))
CSUPPORT_LAZY(sqlite, int, sqlite3_limit, (sqlite3* p0, int p1, int p2), (p0, p1, p2))
CSUPPORT_LAZY(sqlite, int, sqlite3_open_v2, (const char * p0, sqlite3 ** p1, int p2, const char * p3), (p0, p1, p2, p3))
CSUPPORT_LAZY(sqlite, int, sqlite3_prepare_v2, (sqlite3 * p0, const char * p1, int p2, sqlite3_stmt ** p3, const char ** p4), (p0, p1, p2, p3, p4))
CSUPPORT_LAZY(sqlite, int, sqlite3_prepare_v3, (sqlite3 * p0, const char * p1, int p2, unsigned int p3, sqlite3_stmt ** p4, const char ** p5), (p0, p1, p2, p3, p4, p5))
CSUPPORT_LAZY(sqlite, int, sqlite3_reset, (sqlite3_stmt * p0), (p0))
CSUPPORT_LAZY(sqlite, int, sqlite3_step, (sqlite3_stmt* p0), (p0))
CSUPPORT_LAZY(sqlite, sqlite3_vfs *, sqlite3_vfs_find, (const char * p0), (p0))
CSUPPORT_LAZY(sqlite, int, sqlite3_vfs_register, (sqlite3_vfs* p0, int p1), (p0, p1))

void csqlite_harden(sqlite3 *db) {
    int (*configure)(sqlite3 *, int, ...) = (int (*)(sqlite3 *, int, ...))csupport_lazy_symbol(&sqlite, "sqlite3_db_config");
    configure(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    configure(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}

#pragma GCC visibility pop
