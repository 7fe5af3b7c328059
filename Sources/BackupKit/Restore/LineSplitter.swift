// LineSplitter: turns a stream of blocks into lines (JSON Lines), with a cap on line length.

/// Splits blocks at `\n`; calls back with each complete line (without the newline).
struct LineSplitter {
    let maxLine: Int
    private var partial: [UInt8] = []
    private(set) var lines = 0

    init(maxLine: Int) {
        self.maxLine = maxLine
    }

    /// Feeds a block; `body` gets every line it completes. Throws `.lineTooLong` past `maxLine`.
    mutating func feed(_ block: UnsafeRawBufferPointer, _ body: (ArraySlice<UInt8>) throws -> Void) throws {
        var start = 0
        while let newline = block[start...].firstIndex(of: 0x0A) {
            lines += 1
            if partial.isEmpty {
                try body(Array(block[start..<newline])[...])
            } else {
                partial.append(contentsOf: block[start..<newline])
                try body(partial[...])
                partial.removeAll(keepingCapacity: true)
            }
            start = newline + 1
        }
        partial.append(contentsOf: block[start...])
        if partial.count > maxLine {
            throw RestoreError.badManifest("line \(lines + 1) is longer than \(maxLine) bytes")
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
