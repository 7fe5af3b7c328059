// CSupportInterrupt: SIGINT/SIGTERM turned into a flag that long operations poll between blocks.
#ifndef DEVICECTL_CSUPPORT_INTERRUPT_H
#define DEVICECTL_CSUPPORT_INTERRUPT_H

/// Installs SIGINT and SIGTERM handlers (without SA_RESTART, so a blocked read returns EINTR)
/// that record the signal number, and unblocks both on the calling thread. Safe to call more than once.
void csupport_interrupt_install(void);

/// Restores the default dispositions of SIGINT and SIGTERM.
void csupport_interrupt_uninstall(void);

/// The signal received since installation, or 0.
int csupport_interrupt_signal(void);

#endif
