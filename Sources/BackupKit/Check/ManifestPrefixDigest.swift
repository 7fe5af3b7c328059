// ManifestPrefixDigest: SHA-256 of a manifest's bytes before its last line, from the member's raw data.
/// What a members line's `manifestSha256` covers when the members line is the manifest's last line (ManifestCheck
/// refuses one anywhere else): the bytes before that line. Computed from the member's data blocks as they are read,
/// so that another thread can check the lines without hashing them (`ManifestCheck(digestSupplied:)`: list's
/// reading thread hashes while its printing thread checks). Two digests run: one up to the last newline so far, one
/// up to the newline before it (taken over at each newline); the bytes after the last newline wait for the next.
final class ManifestPrefixDigest {
    /// Every byte up to and including the last newline so far.
    private let throughLastNewline: SHA256Digest
    /// Every byte up to and including the newline before that one: the start of the last complete line.
    private let throughNewlineBefore: SHA256Digest
    /// The bytes after the last newline.
    private var partial: [UInt8] = []
    /// A line longer than `ManifestCheck.maxLine`, which the check refuses: no digest (and no more memory).
    private var tooLong = false

    init() throws {
        throughLastNewline = try SHA256Digest()
        throughNewlineBefore = try SHA256Digest()
    }

    /// Feeds the next block of the manifest's data.
    func update(_ block: UnsafeRawBufferPointer) {
        guard !tooLong, block.count > 0 else { return }
        guard let last = Self.lastNewline(in: block, before: block.count) else {
            partial.append(contentsOf: block)
            if partial.count > ManifestCheck.maxLine {
                tooLong = true
                partial = []
            }
            return
        }
        let before = Self.lastNewline(in: block, before: last)
        if let before {
            throughLastNewline.update(partial)
            throughLastNewline.update(UnsafeRawBufferPointer(rebasing: block[...before]))
            throughNewlineBefore.copy(from: throughLastNewline)
            throughLastNewline.update(UnsafeRawBufferPointer(rebasing: block[(before + 1)...last]))
        } else {
            // The newline before this block's only one is the last so far (or none: both at the start).
            throughNewlineBefore.copy(from: throughLastNewline)
            throughLastNewline.update(partial)
            throughLastNewline.update(UnsafeRawBufferPointer(rebasing: block[...last]))
        }
        partial.removeAll(keepingCapacity: true)
        partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: block[(last + 1)...]))
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

    /// The digest (64 lowercase hex digits) of the bytes before the last line, once every block is fed; nil when a
    /// line was longer than `ManifestCheck.maxLine`.
    func finish() -> String? {
        guard !tooLong else { return nil }
        // Ending with a newline, the last line is the one after the newline before; else the bytes after the last.
        return partial.isEmpty ? throughNewlineBefore.hex : throughLastNewline.hex
    }
}
