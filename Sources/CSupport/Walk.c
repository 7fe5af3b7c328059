// Walk: getdents64 for the tree walker, and the decoding of its records.
#define _GNU_SOURCE
#include "CSupportWalk.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t csupport_getdents64(int fd, void *buffer, size_t size) {
    return (ssize_t)syscall(SYS_getdents64, fd, buffer, size);
}

int csupport_dirent_next(const void *buffer, size_t filled, size_t *offset, csupport_dirent *out) {
    if (*offset >= filled) return 0;
    const size_t header = offsetof(struct dirent64, d_name);
    const char *record = (const char *)buffer + *offset;
    unsigned short length;
    if (filled - *offset < header) goto malformed;
    memcpy(&length, record + offsetof(struct dirent64, d_reclen), sizeof length);
    if (length <= header || length > filled - *offset) goto malformed;
    const char *name = record + header;
    size_t name_length = strnlen(name, length - header);
    if (name_length == length - header) goto malformed;  // no NUL inside the record
    out->name = name;
    out->length = name_length;
    out->type = (unsigned char)record[offsetof(struct dirent64, d_type)];
    *offset += length;
    return 1;
malformed:
    errno = EIO;
    return -1;
}
