// CSupportWalk: directory reading for the tree walker and the file counter.
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

#endif
