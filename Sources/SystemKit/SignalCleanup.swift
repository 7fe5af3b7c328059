// SignalCleanup: removes a registered temporary file when SIGINT, SIGTERM or SIGHUP kills the process.
import CSupport
import Glibc

/// One process-wide "unlink this path if a signal kills us" slot, used while an archive is being written.
/// The handler (C, async-signal-safe) unlinks the path, restores the default action and re-raises.
public enum SignalCleanup {
    /// Installs the handlers (idempotent).
    public static func install() throws(SystemError) {
        if csupport_cleanup_install() != 0 { throw SystemError("sigaction") }
    }

    /// Arms the handler for `path`. Returns false when the path is too long to register.
    @discardableResult
    public static func register(_ path: String) -> Bool {
        csupport_cleanup_register(path) == 0
    }

    /// Disarms the handler (after the file was renamed into place or removed).
    public static func clear() {
        csupport_cleanup_clear()
    }
}
