// InterruptSignal: SIGINT/SIGTERM as a flag, so an operation can stop between blocks and clean up.
import CSupport

/// Process-wide SIGINT/SIGTERM recording. The CLI installs it around an operation that must undo
/// its work when interrupted; the operation polls `received` between blocks.
public enum InterruptSignal {
    /// Starts recording SIGINT and SIGTERM instead of dying on them.
    public static func install() { csupport_interrupt_install() }

    /// Restores the default behaviour (terminate) of SIGINT and SIGTERM.
    public static func uninstall() { csupport_interrupt_uninstall() }

    /// The signal number received since `install`, or nil.
    public static var received: Int32? {
        let signal = csupport_interrupt_signal()
        return signal == 0 ? nil : signal
    }
}
