// CSupportSignals: SIGINT, SIGTERM and SIGHUP, one handler for the process, in one of two modes.
#ifndef DEVICECTL_CSUPPORT_SIGNALS_H
#define DEVICECTL_CSUPPORT_SIGNALS_H

/// What the handler does with a signal.
typedef enum {
    /// Records the signal number (`csupport_signals_received`) for an operation that polls between blocks and
    /// cleans up itself; no SA_RESTART, so a blocked read returns EINTR and the flag is seen.
    CSUPPORT_SIGNALS_RECORD = 1,
    /// Unlinks the registered temporary file (if one is registered), says the backup did not complete, restores
    /// the default action and re-raises: the process dies of the signal, for an operation whose threads may be
    /// blocked in a write and cannot poll.
    CSUPPORT_SIGNALS_TERMINATE = 2,
} csupport_signals_mode;

/// Installs the handler for SIGINT, SIGTERM and SIGHUP in `mode` (again to change the mode) and unblocks them in
/// the calling thread (call it before starting other threads). A signal the process ignores (SIG_IGN, e.g. SIGHUP
/// under nohup) stays ignored. Returns 0, or -1 with errno.
int csupport_signals_install(csupport_signals_mode mode);

/// Puts back each signal's disposition from before the first install and forgets a recorded signal.
void csupport_signals_uninstall(void);

/// The signal recorded since installation, or 0.
int csupport_signals_received(void);

/// Registers `path` as the one temporary file the terminating handler unlinks. The path is copied into static
/// storage, so the handler only calls async-signal-safe `unlink`. Returns 0, or -1 when it is too long to register.
int csupport_signals_register(const char *path);

/// Forgets the registered path (after the file was renamed into place or removed).
void csupport_signals_clear(void);

#endif
