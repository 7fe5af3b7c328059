// Walk: getdents64 for the tree walker, and the signal handler that removes a half-written archive.
#define _GNU_SOURCE
#include "CSupportWalk.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
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

// MARK: - Temporary-file cleanup on signals

#define CLEANUP_PATH_MAX 8192
static char cleanup_path[CLEANUP_PATH_MAX];
static volatile sig_atomic_t cleanup_armed = 0;
static volatile sig_atomic_t cleanup_installed = 0;

static void cleanup_handler(int signo) {
    int saved = errno;
    if (cleanup_armed) {
        cleanup_armed = 0;
        unlink(cleanup_path);
    }
    // Said as a restore says it (write(2) is async-signal-safe); the shell then reports 128 + signo.
    static const char interrupted_int[] = "devicectl: interrupted by SIGINT; the backup did not complete\n";
    static const char interrupted_term[] = "devicectl: interrupted by SIGTERM; the backup did not complete\n";
    static const char interrupted_hup[] = "devicectl: interrupted by SIGHUP; the backup did not complete\n";
    const char *message = signo == SIGINT ? interrupted_int : signo == SIGTERM ? interrupted_term : interrupted_hup;
    size_t length = signo == SIGINT ? sizeof interrupted_int - 1
        : signo == SIGTERM ? sizeof interrupted_term - 1 : sizeof interrupted_hup - 1;
    ssize_t ignored = write(STDERR_FILENO, message, length);
    (void)ignored;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signo, &action, NULL);
    errno = saved;
    raise(signo);
}

int csupport_cleanup_register(const char *path) {
    size_t length = strlen(path);
    cleanup_armed = 0;
    if (length >= CLEANUP_PATH_MAX) return -1;
    memcpy(cleanup_path, path, length + 1);
    cleanup_armed = 1;
    return 0;
}

void csupport_cleanup_clear(void) {
    cleanup_armed = 0;
}

int csupport_cleanup_install(void) {
    if (cleanup_installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cleanup_handler;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaddset(&action.sa_mask, SIGHUP);
    const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    sigset_t unblock;
    sigemptyset(&unblock);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction previous;
        if (sigaction(signals[i], NULL, &previous) != 0) return -1;
        if (previous.sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup: stay immune
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
        sigaddset(&unblock, signals[i]);
    }
    // A parent may have spawned us with these blocked (worker threads often block signals); a backup
    // must still die of them, and clean up.
    if (pthread_sigmask(SIG_UNBLOCK, &unblock, NULL) != 0) return -1;
    cleanup_installed = 1;
    return 0;
}
