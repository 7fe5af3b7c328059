// Linux: GNU-only calls declared in CSupportLinux.h.
#define _GNU_SOURCE
#include "CSupportLinux.h"

#include <unistd.h>

int csupport_syncfs(int fd) {
    return syncfs(fd);
}
