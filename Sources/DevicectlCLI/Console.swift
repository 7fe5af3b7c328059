// Console: stdout and stderr for commands, with JSON output.
import Foundation
import Glibc

/// Where commands print. Text goes out unbuffered-enough for scripts: each call writes whole lines.
final class Console: Sendable {
    let stderrIsTerminal: Bool

    init() {
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
    }

    /// Prints a line on stdout.
    func out(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }

    /// Writes text on stdout as it is (a generated script or page that ends in its own newline).
    func outRaw(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Prints a line on stderr.
    func err(_ text: String) { write(text + "\n", to: STDERR_FILENO) }

    /// Prints `devicectl: warning: ...` on stderr.
    func warn(_ text: String) { err("devicectl: warning: \(text)") }

    /// Writes raw text on stderr (for progress bars: no newline).
    func errRaw(_ text: String) { write(text, to: STDERR_FILENO) }

    /// Prints a JSON value (dictionaries, arrays, strings, numbers, booleans, NSNull) on one line of stdout.
    func json(_ value: Any) {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: options) else {
            err("devicectl: internal error: value is not JSON")
            return
        }
        out(String(decoding: data, as: UTF8.self))
    }

    private func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }
}
