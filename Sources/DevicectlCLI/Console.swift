// Console: stdout and stderr for commands, with JSON output.
import DeviceKit
import Foundation
import Glibc
import Synchronization

/// Where commands print. Text goes out unbuffered-enough for scripts: each call writes whole lines.
///
/// Under `--json` (`beginJSON(command:)`, called once the arguments parsed) stdout carries the one result
/// object (`result(_:)`) and every stderr line is a JSON object too: warnings, notices and the final error
/// (docs/JSON.md).
///
/// Under `-q/--quiet` (`beginQuiet()`) stderr carries only errors (`failure(_:exitStatus:path:)`,
/// `errorLine(_:)`): no notices, warnings, summaries or progress, as restic's `--quiet`. Stdout, the data the
/// command was asked for, is unchanged; under `--json` the result still lists the warnings.
final class Console: Sendable {
    let stderrIsTerminal: Bool
    private let state = Mutex(JSONState())

    /// What `--json` mode remembers: the command's name and the warnings printed so far.
    private struct JSONState {
        var command: String?
        var enabled = false
        var quiet = false
        var warnings: [JSONMessage] = []
    }

    init() {
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
    }

    /// Switches to `--json` output for `command` (its name as typed, e.g. `exclude check`).
    func beginJSON(command: String?) {
        state.withLock {
            $0.enabled = true
            $0.command = command
        }
    }

    /// Whether `--json` output is on.
    var isJSON: Bool { state.withLock { $0.enabled } }

    /// Switches to `-q/--quiet` output: from now on stderr carries errors only.
    func beginQuiet() { state.withLock { $0.quiet = true } }

    /// Whether `-q/--quiet` is on.
    var isQuiet: Bool { state.withLock { $0.quiet } }

    /// Prints a line on stdout.
    func out(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }

    /// A listing command's output: `result` under `--json` (`json`); otherwise one line an item, or `none` when
    /// there is no item.
    func listing(json: Bool, _ result: @autoclosure () -> some Encodable, lines: () -> [String], none: String) {
        if json { return self.result(result()) }
        let lines = lines()
        if lines.isEmpty { return out(none) }
        for line in lines { out(line) }
    }

    /// Writes text on stdout as it is (a generated script or page that ends in its own newline).
    func outRaw(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Prints a line on stderr; under `--json`, a `{"type":"notice"}` object holding it.
    func err(_ text: String) {
        guard !isQuiet else { return }
        errorLine(text)
    }

    /// Prints a line on stderr that belongs to an error (a failed verification's problems), even under
    /// `--quiet`; under `--json`, a `{"type":"notice"}` object holding it.
    func errorLine(_ text: String) {
        guard let command = jsonCommand() else { return write(Self.terminalSafe(text) + "\n", to: STDERR_FILENO) }
        stderrLine(JSONStderrLine(type: .notice, command: command, path: nil, message: Self.unprefixed(text)))
    }

    /// Prints `devicectl: warning: ...` on stderr; under `--json`, a `{"type":"warning"}` object, also kept
    /// for the result's `warnings`. `path` is the user's file the warning is about, when there is one.
    func warn(_ text: String, path: String? = nil) {
        guard let command = jsonCommand() else { return err("devicectl: warning: \(text)") }
        let quiet = state.withLock {
            $0.warnings.append(JSONMessage(path: path, text))
            return $0.quiet
        }
        guard !quiet else { return }
        stderrLine(JSONStderrLine(type: .warning, command: command, path: path, message: text))
    }

    /// Writes raw text on stderr (for progress bars: no newline). Nothing under `--json` or `--quiet`.
    func errRaw(_ text: String) {
        guard !isJSON, !isQuiet else { return }
        write(text, to: STDERR_FILENO)
    }

    /// Prints `body` as the command's JSON result on one line of stdout, with `type`, `command` and the
    /// warnings printed so far.
    func result(_ body: some Encodable) {
        let (command, warnings) = state.withLock { ($0.command ?? "", $0.warnings) }
        out(JSONOutput.line(JSONResult(command: command, body: body, warnings: warnings)))
    }

    /// Prints the error that ends the command: `devicectl: MESSAGE` as text, or under `--json` an
    /// `{"type":"error"}` object with the exit status.
    func failure(_ message: String, exitStatus: Int32, path: String? = nil) {
        guard let command = jsonCommand() else { return errorLine("devicectl: \(message)") }
        stderrLine(
            JSONStderrLine(type: .error, command: command, path: path, message: message, exitStatus: exitStatus))
    }

    /// `.some(the command's name, nil when none was recognised)` under `--json`; nil when output is text.
    private func jsonCommand() -> String?? {
        state.withLock { $0.enabled ? .some($0.command) : nil }
    }

    /// Writes a progress line on stderr under `--json` (never under `--quiet`).
    func progress(_ line: JSONProgressLine) {
        guard let command = jsonCommand(), !isQuiet else { return }
        var line = line
        line.command = command
        write(JSONOutput.line(line) + "\n", to: STDERR_FILENO)
    }

    private func stderrLine(_ line: JSONStderrLine) {
        write(JSONOutput.line(line) + "\n", to: STDERR_FILENO)
    }

    /// `text` with every control character but a line break or a tab written as `\u{1B}`: a message can hold a name
    /// from someone else's archive, backup or plist, whose escape sequences must not reach the terminal (every
    /// message and warning goes through here; JSON escapes them itself).
    static func terminalSafe(_ text: String) -> String {
        let isUnsafe = { (scalar: Unicode.Scalar) in scalar != "\n" && scalar != "\t" && DeviceValue.isControl(scalar) }
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// `text` without a leading `devicectl: ` (JSON lines name the program by being devicectl's).
    static func unprefixed(_ text: String) -> String {
        text.hasPrefix("devicectl: ") ? String(text.dropFirst("devicectl: ".count)) : text
    }

    /// Writes `bytes` on stdout as they are (`OutputLines`' blocks).
    func outBytes(_ bytes: UnsafeRawBufferPointer) { write(bytes, to: STDOUT_FILENO) }

    private func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: fd) }
    }

    private func write(_ buffer: UnsafeRawBufferPointer, to fd: Int32) {
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
