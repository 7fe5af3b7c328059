// StandardDescriptors: whether the process was started with standard input, output and error open.
import Glibc

/// Descriptors 0, 1 and 2. A process started with one of them closed gives that number to the next file it
/// opens, so output meant for the terminal or a pipe would be written into that file (a device's lock file,
/// an archive). Check before anything is opened.
public enum StandardDescriptors {
    /// The standard descriptors that are not open, in order (`fcntl(F_GETFD)` fails with `EBADF`).
    public static func closed() -> [Int32] {
        [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].filter { fcntl($0, F_GETFD) == -1 && errno == EBADF }
    }

    /// `standard input`, `standard output` or `standard error` (with its number), for messages.
    public static func name(_ descriptor: Int32) -> String {
        switch descriptor {
        case STDIN_FILENO: "standard input (descriptor 0)"
        case STDOUT_FILENO: "standard output (descriptor 1)"
        case STDERR_FILENO: "standard error (descriptor 2)"
        default: "descriptor \(descriptor)"
        }
    }
}
