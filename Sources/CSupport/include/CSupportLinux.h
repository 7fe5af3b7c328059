// CSupportLinux: Linux constants and calls that glibc hides without _GNU_SOURCE (so Swift cannot see them).
#ifndef DEVICECTL_CSUPPORT_LINUX_H
#define DEVICECTL_CSUPPORT_LINUX_H

#include <pthread.h>

/// O_PATH: a descriptor that only locates a file (usable as an *at() directory).
static const int CSUPPORT_O_PATH = 010000000;
/// O_TMPFILE: an unnamed temporary file in the given directory.
static const int CSUPPORT_O_TMPFILE = 020000000 | 0200000;
/// UTIME_OMIT: leave this timestamp unchanged (utimensat/futimens).
static const long CSUPPORT_UTIME_OMIT = (1l << 30) - 2l;

/// lseek(2) whence values: the next data at or after the offset, the next hole at or after it (the end of the file
/// counts as a hole).
static const int CSUPPORT_SEEK_DATA = 3;
static const int CSUPPORT_SEEK_HOLE = 4;

/// syncfs(2): flushes the whole file system holding `fd`. Returns 0, or -1 with errno set.
int csupport_syncfs(int fd);

/// Moves the calling thread to SCHED_IDLE: it runs only on a core nothing else wants. Returns 0, or -1 with
/// errno set.
int csupport_run_when_idle(void);

/// The CPU the calling thread runs on now (sched_getcpu), or -1.
int csupport_current_cpu(void);

/// Removes `cpu` from the calling thread's allowed CPUs when the thread may run on two CPUs or more, `cpu` among
/// them. Returns 1 when the set changed, 0 when it was left
/// (a single allowed CPU, or `cpu` not in the set), -1 with errno set when a call failed.
int csupport_avoid_cpu(int cpu);

/// Adds `cpu` back to the allowed CPUs of `thread` (a thread of this process), undoing `csupport_avoid_cpu`.
/// Returns 0, or an errno value.
int csupport_thread_allow_cpu(pthread_t thread, int cpu);

/// The calling thread's kernel id (gettid; tests watch a thread's /proc/self/task entry with it).
int csupport_thread_id(void);

/// Whether the calling thread may run on `cpu`: 1 or 0 (0 also when the call fails). Tests read affinity with it.
int csupport_cpu_allowed(int cpu);

/// Restricts the calling thread to `cpu` alone (tests: two threads sharing one CPU). Returns 0, or -1 with errno.
int csupport_pin_to_cpu(int cpu);

#endif
