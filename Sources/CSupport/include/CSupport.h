// CSupport: the few Linux calls Swift cannot make directly (raw syscalls, macros, struct statx).
#ifndef DEVICECTL_CSUPPORT_H
#define DEVICECTL_CSUPPORT_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/xattr.h>

#include "CSupportLinux.h"
#include "CSupportSignals.h"
#include "CSupportLazy.h"
#include "CSupportMemory.h"

/// Flags for csupport_openat2's `resolve` argument (linux/openat2.h).
static const uint64_t CSUPPORT_RESOLVE_NO_MAGICLINKS = 0x02;
static const uint64_t CSUPPORT_RESOLVE_NO_SYMLINKS = 0x04;
static const uint64_t CSUPPORT_RESOLVE_BENEATH = 0x08;

/// AT_EMPTY_PATH (fcntl.h hides it without _GNU_SOURCE).
static const int CSUPPORT_AT_EMPTY_PATH = 0x1000;

/// Flags for csupport_renameat2.
static const unsigned int CSUPPORT_RENAME_NOREPLACE = 1;
static const unsigned int CSUPPORT_RENAME_EXCHANGE = 2;

/// How many times csupport_openat2 makes the call while it fails with EAGAIN.
static const int CSUPPORT_OPENAT2_ATTEMPTS = 64;

/// `openat2(2)`, made again while it fails with EAGAIN (a ".." that raced a rename or mount somewhere, under
/// RESOLVE_BENEATH), up to CSUPPORT_OPENAT2_ATTEMPTS times. Returns the descriptor, or -1 with errno set.
int csupport_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve);

/// `value` with `places` digits after the point, as printf's `%.*f` writes it (rounded to nearest, ties as the C
/// library rounds the exact binary value), into `buffer`; returns snprintf's count. A C call because Swift's
/// `String(format:)` goes through `CVarArg` casts whose first use scans every protocol conformance in the binary.
int csupport_format_fixed(char *buffer, size_t size, double value, int places);

/// `renameat2(2)`. Returns 0, or -1 with errno set.
int csupport_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// What devicectl needs from `statx(2)`, flattened so Swift sees plain fields.
typedef struct csupport_stat {
    uint32_t mode;          ///< st_mode: type and permission bits
    uint32_t uid;
    uint32_t gid;
    uint32_t nlink;
    uint64_t ino;
    uint64_t dev;           ///< makedev(dev_major, dev_minor)
    uint64_t rdev;
    uint64_t size;
    int64_t mtime_sec;
    uint32_t mtime_nsec;
    int64_t atime_sec;
    uint32_t atime_nsec;
    int nodump;             ///< 1 when STATX_ATTR_NODUMP is set (chattr +d)
    int64_t ctime_sec;      ///< status change time: moves on every write, chmod, xattr or link change,
    uint32_t ctime_nsec;    ///< and unlike mtime cannot be set back by the file's writer
    uint64_t blocks;        ///< 512-byte blocks allocated (stx_blocks); fewer than the size needs: holes. When the
                            ///< file system does not report it, as many as the size needs (read as no holes)
} csupport_stat;

/// `statx(2)` with AT_SYMLINK_NOFOLLOW plus `extra_flags` (e.g. AT_EMPTY_PATH).
/// Returns 0, or -1 with errno set.
int csupport_statx(int dirfd, const char *path, int extra_flags, csupport_stat *out);

#include "CSupportWalk.h"

#endif
