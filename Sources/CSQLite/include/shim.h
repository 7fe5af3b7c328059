#ifndef DEVICECTL_CSQLITE_SHIM_H
#define DEVICECTL_CSQLITE_SHIM_H
// SQLite from Debian (libsqlite3-dev): MobileSync backups index their files in Manifest.db. Loaded on first use
// (Lazy.c).
#include <sqlite3.h>
#include <string.h>
#include <stdlib.h>
#include <fcntl.h>
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)  // Linux's value (glibc defines it only with _GNU_SOURCE)
#endif
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>

// sqlite3_db_config is variadic, which Swift cannot call: defensive mode (no writes to the schema or shadow tables)
// and an untrusted schema (no SQL functions run from views or triggers a hostile file defines). In Lazy.c, with the
// library's own sqlite3_db_config (a variadic call cannot be forwarded).
void csqlite_harden(sqlite3 *db);
// A read-only VFS over an open descriptor, for a file that has no name (O_TMPFILE: a decrypted Manifest.db). The
// unix VFS opens by name with O_NOFOLLOW, so `/proc/self/fd/N` cannot reach such a file; this one opens the database
// named "devicectl-fd-N" as descriptor N (borrowed: never closed here), reads it with pread, writes nothing, takes
// no lock (the URI says immutable) and opens no journal or WAL beside it (xAccess says none exists); the sorter's
// temporary files are unnamed (O_TMPFILE) files of its own. A WAL-mode
// header (bytes 18 and 19 = 2) reads as rollback mode: the WAL of a closed backup database is empty, and an
// immutable database needs no WAL index. Everything else (randomness, time) is the default VFS's.
typedef struct csqlite_descriptor_file {
    sqlite3_file base;
    int fd;
} csqlite_descriptor_file;

static int csqlite_descriptor_close(sqlite3_file *file) {
    (void)file;
    return SQLITE_OK;
}

// Reads `amount` bytes at `offset` of `fd` into `out`, zero-filling past the end: SQLITE_OK, SQLITE_IOERR_SHORT_READ
// (the file ends first) or SQLITE_IOERR_READ. `*done` gets the bytes read.
static int csqlite_pread_all(int fd, unsigned char *out, int amount, sqlite3_int64 offset, int *done) {
    *done = 0;
    while (*done < amount) {
        ssize_t n = pread(fd, out + *done, (size_t)(amount - *done), (off_t)(offset + *done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return SQLITE_IOERR_READ;
        if (n == 0) break;
        *done += (int)n;
    }
    if (*done < amount) {
        memset(out + *done, 0, (size_t)(amount - *done));
        return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
}

static int csqlite_descriptor_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    unsigned char *out = (unsigned char *)buffer;
    int done = 0;
    int status = csqlite_pread_all(((csqlite_descriptor_file *)file)->fd, out, amount, offset, &done);
    if (offset <= 18 && offset + done >= 20 && out[18 - offset] == 2 && out[19 - offset] == 2) {
        out[18 - offset] = 1;
        out[19 - offset] = 1;
    }
    return status;
}

static int csqlite_descriptor_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    (void)file; (void)buffer; (void)amount; (void)offset;
    return SQLITE_READONLY;
}

static int csqlite_descriptor_truncate(sqlite3_file *file, sqlite3_int64 size) {
    (void)file; (void)size;
    return SQLITE_READONLY;
}

static int csqlite_descriptor_sync(sqlite3_file *file, int flags) {
    (void)file; (void)flags;
    return SQLITE_OK;
}

static int csqlite_descriptor_size(sqlite3_file *file, sqlite3_int64 *size) {
    struct stat status;
    if (fstat(((csqlite_descriptor_file *)file)->fd, &status) != 0) return SQLITE_IOERR_FSTAT;
    *size = (sqlite3_int64)status.st_size;
    return SQLITE_OK;
}

static int csqlite_descriptor_lock(sqlite3_file *file, int level) {
    (void)file; (void)level;
    return SQLITE_OK;
}

static int csqlite_descriptor_reserved(sqlite3_file *file, int *reserved) {
    (void)file;
    *reserved = 0;
    return SQLITE_OK;
}

static int csqlite_descriptor_control(sqlite3_file *file, int operation, void *argument) {
    (void)file; (void)operation; (void)argument;
    return SQLITE_NOTFOUND;
}

static int csqlite_descriptor_sector(sqlite3_file *file) {
    (void)file;
    return 4096;
}

static int csqlite_descriptor_characteristics(sqlite3_file *file) {
    (void)file;
    return SQLITE_IOCAP_IMMUTABLE;
}

static const sqlite3_io_methods csqlite_descriptor_methods = {
    1, csqlite_descriptor_close, csqlite_descriptor_read, csqlite_descriptor_write, csqlite_descriptor_truncate,
    csqlite_descriptor_sync, csqlite_descriptor_size, csqlite_descriptor_lock, csqlite_descriptor_lock,
    csqlite_descriptor_reserved, csqlite_descriptor_control, csqlite_descriptor_sector,
    csqlite_descriptor_characteristics,
};

// SQLite's temporary files (the sorter's, when a large ORDER BY spills), for a connection of this VFS: unnamed files
// (O_TMPFILE, 0600) in $TMPDIR or /tmp, owned and closed here. What they hold comes from the decrypted index, so they
// get no name either, not even for the moment the unix VFS gives its own temporary files one before unlinking them.
static int csqlite_temporary_close(sqlite3_file *file) {
    close(((csqlite_descriptor_file *)file)->fd);
    return SQLITE_OK;
}

static int csqlite_temporary_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    int done = 0;
    return csqlite_pread_all(((csqlite_descriptor_file *)file)->fd, (unsigned char *)buffer, amount, offset, &done);
}

static int csqlite_temporary_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    int fd = ((csqlite_descriptor_file *)file)->fd;
    const unsigned char *in = (const unsigned char *)buffer;
    int done = 0;
    while (done < amount) {
        ssize_t n = pwrite(fd, in + done, (size_t)(amount - done), (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return errno == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
        done += (int)n;
    }
    return SQLITE_OK;
}

static int csqlite_temporary_truncate(sqlite3_file *file, sqlite3_int64 size) {
    return ftruncate(((csqlite_descriptor_file *)file)->fd, (off_t)size) == 0 ? SQLITE_OK : SQLITE_IOERR_TRUNCATE;
}

static int csqlite_temporary_characteristics(sqlite3_file *file) {
    (void)file;
    return 0;
}

static const sqlite3_io_methods csqlite_temporary_methods = {
    1, csqlite_temporary_close, csqlite_temporary_read, csqlite_temporary_write, csqlite_temporary_truncate,
    csqlite_descriptor_sync, csqlite_descriptor_size, csqlite_descriptor_lock, csqlite_descriptor_lock,
    csqlite_descriptor_reserved, csqlite_descriptor_control, csqlite_descriptor_sector,
    csqlite_temporary_characteristics,
};

static int csqlite_is_descriptor_name(const char *name) {
    return name != 0 && strncmp(name, "devicectl-fd-", 13) == 0;
}

// The database "devicectl-fd-N" is descriptor N; an unnamed temporary file (the sorter's, when a large ORDER BY
// spills) is an O_TMPFILE file. Nothing else opens. The default VFS (pAppData) serves the names of other files.
static int csqlite_descriptor_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    sqlite3_vfs *base = (sqlite3_vfs *)vfs->pAppData;
    file->pMethods = 0;
    (void)base;
    if (!(flags & SQLITE_OPEN_MAIN_DB)) {
        // Only unnamed temporary files: no journal, WAL or other file of ours.
        if (name != 0 || !(flags & SQLITE_OPEN_DELETEONCLOSE)) return SQLITE_CANTOPEN;
        const char *directory = getenv("TMPDIR");
        if (directory == 0 || *directory == 0) directory = "/tmp";
        int fd = open(directory, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
        if (fd < 0) return SQLITE_CANTOPEN;
        ((csqlite_descriptor_file *)file)->fd = fd;
        file->pMethods = &csqlite_temporary_methods;
        if (outFlags) *outFlags = flags;
        return SQLITE_OK;
    }
    if (!csqlite_is_descriptor_name(name) || (flags & SQLITE_OPEN_READWRITE)) return SQLITE_CANTOPEN;
    int fd = 0;
    const char *digit = name + 13;
    if (*digit == 0) return SQLITE_CANTOPEN;
    for (; *digit; digit++) {
        if (*digit < '0' || *digit > '9' || fd > 100000000) return SQLITE_CANTOPEN;
        fd = fd * 10 + (*digit - '0');
    }
    ((csqlite_descriptor_file *)file)->fd = fd;
    file->pMethods = &csqlite_descriptor_methods;
    if (outFlags) *outFlags = SQLITE_OPEN_READONLY;
    return SQLITE_OK;
}

static int csqlite_descriptor_delete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    sqlite3_vfs *base = (sqlite3_vfs *)vfs->pAppData;
    if (csqlite_is_descriptor_name(name)) return SQLITE_IOERR_DELETE;
    return base->xDelete(base, name, syncDirectory);
}

// Nothing exists beside the descriptor's database (no journal, no WAL); other names are the default VFS's.
static int csqlite_descriptor_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    sqlite3_vfs *base = (sqlite3_vfs *)vfs->pAppData;
    if (csqlite_is_descriptor_name(name)) {
        *result = 0;
        return SQLITE_OK;
    }
    return base->xAccess(base, name, flags, result);
}

static int csqlite_descriptor_full_pathname(sqlite3_vfs *vfs, const char *name, int count, char *out) {
    sqlite3_vfs *base = (sqlite3_vfs *)vfs->pAppData;
    if (!csqlite_is_descriptor_name(name)) return base->xFullPathname(base, name, count, out);
    size_t length = strlen(name);
    if (count <= 0 || length >= (size_t)count) return SQLITE_CANTOPEN;
    memcpy(out, name, length + 1);
    return SQLITE_OK;
}

// Registers that VFS as "devicectl-descriptor" (never the default). Call it once (devicectl calls it from a lazy
// global, which Swift initialises exactly once).
static inline int csqlite_register_descriptor_vfs(void) {
    static sqlite3_vfs vfs;
    sqlite3_vfs *base = sqlite3_vfs_find(0);
    if (base == 0) return SQLITE_ERROR;
    vfs = *base;
    vfs.iVersion = base->iVersion < 2 ? base->iVersion : 2;
    vfs.szOsFile = (int)sizeof(csqlite_descriptor_file);
    vfs.pNext = 0;
    vfs.pAppData = base;
    vfs.zName = "devicectl-descriptor";
    vfs.xOpen = csqlite_descriptor_open;
    vfs.xDelete = csqlite_descriptor_delete;
    vfs.xAccess = csqlite_descriptor_access;
    vfs.xFullPathname = csqlite_descriptor_full_pathname;
    return sqlite3_vfs_register(&vfs, 0);
}
#endif
