// Interrupt: async-signal-safe recording of SIGINT/SIGTERM for operations that must clean up first.
#define _GNU_SOURCE
#include "CSupportInterrupt.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received_signal = 0;

static void record_signal(int signo) {
    received_signal = signo;
}

void csupport_interrupt_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocked read(2) returns EINTR so the flag is seen
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    // A parent may have started us with these blocked (some test harnesses and spawners do): unblock them
    // on this thread so they interrupt its blocking reads.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void csupport_interrupt_uninstall(void) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

int csupport_interrupt_signal(void) {
    return received_signal;
}
