// CSupportWalk: directory reading and signal-time temporary-file cleanup for the backup engine.
#ifndef DEVICECTL_CSUPPORT_WALK_H
#define DEVICECTL_CSUPPORT_WALK_H

#include <stddef.h>
#include <sys/types.h>

/// `getdents64(2)`: fills `buffer` with `struct linux_dirent64` records. Returns the bytes filled,
/// 0 at the end of the directory, or -1 with errno set.
ssize_t csupport_getdents64(int fd, void *buffer, size_t size);

/// One record of a getdents64 buffer, decoded: the name (NUL-terminated, inside the buffer), its length
/// without the NUL, and `d_type`.
typedef struct csupport_dirent {
    const char *name;
    size_t length;
    unsigned char type;
} csupport_dirent;

/// Decodes the `struct linux_dirent64` at `*offset` of the `filled` bytes of `buffer` into `out` and moves
/// `*offset` past it. Returns 1 for a record, 0 at the end of the buffer, -1 (errno EIO) for a record whose
/// length or name does not fit the buffer.
int csupport_dirent_next(const void *buffer, size_t filled, size_t *offset, csupport_dirent *out);

/// Registers `path` as the one temporary file to unlink if SIGINT, SIGTERM or SIGHUP arrives.
/// The path is copied into static storage, so the handler only calls async-signal-safe `unlink`.
/// Returns 0, or -1 when the path is too long to register (the file is then not cleaned up on a signal).
int csupport_cleanup_register(const char *path);

/// Forgets the registered path (call after the file was renamed or removed).
void csupport_cleanup_clear(void);

/// Installs the SIGINT/SIGTERM/SIGHUP handlers (once): unlink the registered path, restore the
/// default action and re-raise, so the process still dies of the signal. A signal the process ignores
/// (SIG_IGN, e.g. SIGHUP under nohup) stays ignored; the others are unblocked in the calling thread
/// (call it before starting other threads). Returns 0, or -1 with errno.
int csupport_cleanup_install(void);

#endif
