#ifndef DEVICECTL_CSQLITE_SHIM_H
#define DEVICECTL_CSQLITE_SHIM_H
// SQLite from Debian (libsqlite3-dev): MobileSync backups index their files in Manifest.db.
#include <sqlite3.h>
#endif
