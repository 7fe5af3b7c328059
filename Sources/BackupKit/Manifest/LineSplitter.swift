// LineSplitter: turns a stream of blocks into lines (JSON Lines), with a cap on line length.
import Glibc

/// Splits blocks at `\n`; calls back with each complete line (without the newline).
struct LineSplitter {
    let maxLine: Int
    private var partial: [UInt8] = []
    private(set) var lines = 0

    init(maxLine: Int) {
        self.maxLine = maxLine
    }

    /// Feeds a block; `body` gets every line it completes. Throws `.lineTooLong` past `maxLine`.
    /// Lines are found with memchr and handed over in one reused buffer (an array per line, found byte by byte,
    /// was a third of the time a restore spends on a 40k-line manifest).
    mutating func feed(_ block: UnsafeRawBufferPointer, _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        guard let base = block.baseAddress else { return }
        var start = 0
        while start < block.count, let found = memchr(base + start, 0x0A, block.count - start) {
            let newline = UnsafeRawPointer(found) - base
            lines += 1
            partial.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: newline - start))
            try body(partial[...])
            partial.removeAll(keepingCapacity: true)
            start = newline + 1
        }
        partial.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: block.count - start))
        if partial.count > maxLine {
            throw RestoreError.badManifest(.malformed("line \(lines + 1) is longer than \(maxLine) bytes"))
        }
    }

    /// The unterminated last line, if any.
    mutating func finish(_ body: (ArraySlice<UInt8>) throws -> Void) throws {
        guard !partial.isEmpty else { return }
        lines += 1
        try body(partial[...])
        partial.removeAll()
    }
}
