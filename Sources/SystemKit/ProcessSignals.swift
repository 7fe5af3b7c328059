// ProcessSignals: SIGINT, SIGTERM and SIGHUP for the whole process, recorded for polling or fatal after cleanup.
import CSupport
import Glibc

/// The one signal mechanism: one async-signal-safe handler (C) for SIGINT, SIGTERM and SIGHUP, in one of two modes.
/// - `record()`: an operation that can stop between blocks (restore, verify, list, a MobileSync backup) polls
///   `received`, undoes its work and exits 128 + the signal.
/// - `terminate()`: a tar backup, whose output thread may be blocked in a write, dies of the signal after the
///   handler unlinks the temporary archive `register(_:)` armed, as GNU tar leaves no partial archive behind.
/// A signal the process ignores (SIGHUP under nohup) stays ignored; `restore()` puts back what was there before.
public enum ProcessSignals {
    /// Starts recording the signals instead of dying of them.
    public static func record() throws(SystemError) {
        if csupport_signals_install(CSUPPORT_SIGNALS_RECORD) != 0 { throw SystemError("sigaction") }
    }

    /// Makes the signals fatal after removing the registered temporary file and saying the backup did not complete.
    public static func terminate() throws(SystemError) {
        if csupport_signals_install(CSUPPORT_SIGNALS_TERMINATE) != 0 { throw SystemError("sigaction") }
    }

    /// Puts back the dispositions from before the first `record()` or `terminate()`, and forgets a recorded signal.
    public static func restore() { csupport_signals_uninstall() }

    /// The signal recorded since `record()`, or nil.
    public static var received: Int32? {
        let signal = csupport_signals_received()
        return signal == 0 ? nil : signal
    }

    /// Arms the terminating handler to unlink `path`. Returns false when the path is too long to register.
    @discardableResult
    public static func register(_ path: String) -> Bool {
        csupport_signals_register(path) == 0
    }

    /// Disarms it (after the file was renamed into place or removed).
    public static func clear() { csupport_signals_clear() }

    /// `SIGINT`, `SIGTERM`, `SIGHUP`, or `signal N`: a signal as messages name it.
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}
