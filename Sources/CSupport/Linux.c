// Linux: GNU-only calls declared in CSupportLinux.h.
#define _GNU_SOURCE
#include "CSupportLinux.h"

#include <sched.h>
#include <unistd.h>

int csupport_syncfs(int fd) {
    return syncfs(fd);
}

int csupport_run_when_idle(void) {
    struct sched_param parameter = {0};
    return sched_setscheduler(0, SCHED_IDLE, &parameter);
}
