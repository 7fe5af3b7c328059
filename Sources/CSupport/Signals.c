// Signals: SIGINT, SIGTERM and SIGHUP, one async-signal-safe handler for the process (recorded, or fatal after
// removing a half-written archive).
#define _GNU_SOURCE
#include "CSupportSignals.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define SIGNAL_COUNT 3
static const int handled[SIGNAL_COUNT] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction previous[SIGNAL_COUNT];
static int saved_previous = 0;

static volatile sig_atomic_t mode = 0;
static volatile sig_atomic_t received_signal = 0;

#define CLEANUP_PATH_MAX 8192
static char cleanup_path[CLEANUP_PATH_MAX];
static volatile sig_atomic_t cleanup_armed = 0;

static void terminate(int signo) {
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
    raise(signo);
}

static void on_signal(int signo) {
    int saved = errno;
    if (mode == CSUPPORT_SIGNALS_TERMINATE) {
        terminate(signo);
    } else {
        received_signal = signo;
    }
    errno = saved;
}

int csupport_signals_install(csupport_signals_mode chosen) {
    mode = chosen;
    if (!saved_previous) {
        for (int i = 0; i < SIGNAL_COUNT; i++) {
            if (sigaction(handled[i], NULL, &previous[i]) != 0) return -1;
        }
        saved_previous = 1;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < SIGNAL_COUNT; i++) sigaddset(&action.sa_mask, handled[i]);
    action.sa_flags = 0;  // no SA_RESTART: a blocked read(2) returns EINTR so the flag is seen
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int i = 0; i < SIGNAL_COUNT; i++) {
        if (previous[i].sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup: stay immune
        if (sigaction(handled[i], &action, NULL) != 0) return -1;
        sigaddset(&unblock, handled[i]);
    }
    // A parent may have spawned us with these blocked (some test harnesses and spawners do).
    if (pthread_sigmask(SIG_UNBLOCK, &unblock, NULL) != 0) return -1;
    return 0;
}

void csupport_signals_uninstall(void) {
    if (saved_previous) {
        for (int i = 0; i < SIGNAL_COUNT; i++) sigaction(handled[i], &previous[i], NULL);
    }
    mode = 0;
    received_signal = 0;
}

int csupport_signals_received(void) {
    return received_signal;
}

int csupport_signals_register(const char *path) {
    size_t length = strlen(path);
    cleanup_armed = 0;
    if (length >= CLEANUP_PATH_MAX) return -1;
    memcpy(cleanup_path, path, length + 1);
    cleanup_armed = 1;
    return 0;
}

void csupport_signals_clear(void) {
    cleanup_armed = 0;
}
