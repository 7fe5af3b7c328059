// ManifestPrefixDigest: SHA-256 of a manifest's bytes before its last line, from the member's raw data.

/// What a members line's `manifestSha256` covers when the members line is the manifest's last line (ManifestCheck
/// refuses one anywhere else): the bytes before that line. Computed from the member's data blocks as they are read,
/// so that another thread can check the lines without hashing them (`ManifestCheck(digestSupplied:)`: list's
/// reading thread hashes while its printing thread checks). One digest takes every byte; at the last two newlines of
/// each block it is copied (a context is 112 bytes), so the state after the last newline and after the one before it
/// are at hand when the data ends, and nothing is kept however long a line.
final class ManifestPrefixDigest {
    /// Every byte so far.
    private let running: SHA256Digest
    /// Every byte up to and including the last newline so far.
    private let throughLastNewline: SHA256Digest
    /// Every byte up to and including the newline before that one (the start of the last complete line).
    private let throughNewlineBefore: SHA256Digest
    private var endsWithNewline = false

    init() throws {
        running = try SHA256Digest()
        throughLastNewline = try SHA256Digest()
        throughNewlineBefore = try SHA256Digest()
    }

    /// Feeds the next block of the manifest's data.
    func update(_ block: UnsafeRawBufferPointer) {
        guard block.count > 0 else { return }
        endsWithNewline = block[block.count - 1] == 0x0A
        guard let last = Self.lastNewline(in: block, before: block.count) else { return running.update(block) }
        if let before = Self.lastNewline(in: block, before: last) {
            running.update(UnsafeRawBufferPointer(rebasing: block[...before]))
            throughNewlineBefore.copy(from: running)
            running.update(UnsafeRawBufferPointer(rebasing: block[(before + 1)...last]))
        } else {
            // The newline before this block's only one is the last so far (or none: still at the start).
            throughNewlineBefore.copy(from: throughLastNewline)
            running.update(UnsafeRawBufferPointer(rebasing: block[...last]))
        }
        throughLastNewline.copy(from: running)
        running.update(UnsafeRawBufferPointer(rebasing: block[(last + 1)...]))
    }

    /// The index of the last newline in `block[..<end]` (lines are short: a few hundred bytes back at most, but for
    /// a block inside one long line).
    private static func lastNewline(in block: UnsafeRawBufferPointer, before end: Int) -> Int? {
        var index = end - 1
        while index >= 0 {
            if block[index] == 0x0A { return index }
            index -= 1
        }
        return nil
    }

    /// The digest (64 lowercase hex digits) of the bytes before the last line, once every block is fed.
    func finish() -> String {
        // Ending with a newline, the last line is the one after the newline before; else the bytes after the last.
        endsWithNewline ? throughNewlineBefore.hex : throughLastNewline.hex
    }
}
