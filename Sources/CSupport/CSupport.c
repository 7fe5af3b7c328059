// CSupport: thin wrappers over Linux syscalls that Swift cannot call directly.
#define _GNU_SOURCE
#include "CSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int csupport_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = flags;
    how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0;
    how.resolve = resolve;
    // With RESOLVE_BENEATH, a ".." walked while any rename or mount happened anywhere on the system fails with
    // EAGAIN (the kernel cannot prove it stayed beneath); openat2(2) leaves the retry to the caller. Measured: 20%
    // of the opens of a "b/../." chain with one thread renaming elsewhere. Bounded, so a caller still sees EAGAIN
    // (and fails) under renames that never stop.
    for (int attempt = 0;; attempt++) {
        long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
        if (fd >= 0 || errno != EAGAIN || attempt == CSUPPORT_OPENAT2_ATTEMPTS - 1) return (int)fd;
    }
}

int csupport_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

int csupport_statx(int dirfd, const char *path, int extra_flags, csupport_stat *out) {
    struct statx sx;
    unsigned mask = STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID | STATX_MTIME |
                    STATX_ATIME | STATX_CTIME | STATX_INO | STATX_SIZE | STATX_BLOCKS;
    if (statx(dirfd, path, AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT | extra_flags, mask, &sx) != 0) {
        return -1;
    }
    out->mode = sx.stx_mode;
    out->uid = sx.stx_uid;
    out->gid = sx.stx_gid;
    out->nlink = sx.stx_nlink;
    out->ino = sx.stx_ino;
    out->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    out->rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
    out->size = sx.stx_size;
    out->mtime_sec = sx.stx_mtime.tv_sec;
    out->mtime_nsec = sx.stx_mtime.tv_nsec;
    out->atime_sec = sx.stx_atime.tv_sec;
    out->atime_nsec = sx.stx_atime.tv_nsec;
    out->nodump = (sx.stx_attributes_mask & STATX_ATTR_NODUMP) && (sx.stx_attributes & STATX_ATTR_NODUMP) ? 1 : 0;
    out->ctime_sec = sx.stx_ctime.tv_sec;
    out->ctime_nsec = sx.stx_ctime.tv_nsec;
    out->blocks = (sx.stx_mask & STATX_BLOCKS) ? sx.stx_blocks : (sx.stx_size + 511) / 512;
    return 0;
}

int csupport_format_fixed(char *buffer, size_t size, double value, int places) {
    return snprintf(buffer, size, "%.*f", places, value);
}
