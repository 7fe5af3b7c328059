// Linux: GNU-only calls declared in CSupportLinux.h.
#define _GNU_SOURCE
#include "CSupportLinux.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

int csupport_syncfs(int fd) {
    return syncfs(fd);
}

int csupport_run_when_idle(void) {
    struct sched_param parameter = {0};
    return sched_setscheduler(0, SCHED_IDLE, &parameter);
}

int csupport_current_cpu(void) {
    return sched_getcpu();
}

int csupport_avoid_cpu(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    if (CPU_COUNT(&set) < 2 || !CPU_ISSET(cpu, &set)) return 0;
    CPU_CLR(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 1 : -1;
}

int csupport_thread_allow_cpu(pthread_t thread, int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
    cpu_set_t set;
    CPU_ZERO(&set);
    int status = pthread_getaffinity_np(thread, sizeof set, &set);
    if (status != 0) return status;
    if (CPU_ISSET(cpu, &set)) return 0;
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(thread, sizeof set, &set);
}

int csupport_thread_id(void) {
    return gettid();
}

int csupport_cpu_allowed(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_ISSET(cpu, &set) ? 1 : 0;
}

int csupport_pin_to_cpu(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) { errno = EINVAL; return -1; }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}
