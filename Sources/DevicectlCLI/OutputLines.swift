// OutputLines: the stdout lines of a command that prints one a member (list), written in blocks.
import Glibc

/// Collects stdout lines and writes them 64 KiB at a time, or a line at a time when stdout is a terminal (as stdio
/// buffers): a listing of a million members makes a few hundred writes instead of a million. The command flushes
/// before it writes anything else (its summary, an error), so the order of what it prints stays the same.
final class OutputLines {
    private static let blockSize = 1 << 16
    private let console: Console
    private let lineAtATime: Bool
    private var pending: [UInt8] = []

    init(_ console: Console) {
        self.console = console
        lineAtATime = isatty(STDOUT_FILENO) != 0
        pending.reserveCapacity(Self.blockSize + 4096)
    }

    /// Queues `line` and a newline.
    func append(_ line: String) {
        var line = line
        append { buffer in line.withUTF8 { buffer.append(contentsOf: $0) } }
    }

    /// Queues the line `build` appends (its bytes, without the newline) and a newline.
    func append(building build: (inout [UInt8]) -> Void) {
        build(&pending)
        pending.append(UInt8(ascii: "\n"))
        if lineAtATime || pending.count >= Self.blockSize { flush() }
    }

    /// Writes what is queued.
    func flush() {
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { console.outBytes($0) }
        pending.removeAll(keepingCapacity: true)
    }
}
