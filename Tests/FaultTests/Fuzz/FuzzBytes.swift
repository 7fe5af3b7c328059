// FuzzBytes: the byte-level damage and file replacements the fuzzers' mutators share.
import Foundation
import Glibc
import SystemKit
import TestSupport

enum FuzzBytes {
    /// `bytes` with bits flipped, bytes set, cut, grown or with bytes inserted, and what was done.
    static func damaged(_ bytes: [UInt8], using rng: inout SeededGenerator) -> ([UInt8], String) {
        var bytes = bytes
        switch Int.random(in: 0..<5, using: &rng) {
        case 0 where !bytes.isEmpty:
            var flips: [String] = []
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                let bit = UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                bytes[at] ^= bit
                flips.append("\(at)^\(bit)")
            }
            return (bytes, "flip " + flips.joined(separator: ","))
        case 1 where !bytes.isEmpty:
            var sets: [String] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[at] = [0x00, 0xFF, 0x7F, 0x80, 0x0F, 0xF0].randomElement(using: &rng)!
                sets.append("\(at)=\(bytes[at])")
            }
            return (bytes, "set " + sets.joined(separator: ","))
        case 2 where !bytes.isEmpty:
            let count = Int.random(in: 0..<bytes.count, using: &rng)
            bytes.removeSubrange(count...)
            return (bytes, "cut to \(count) bytes")
        case 3:
            let extra = random(1...300, using: &rng)
            return (bytes + extra, "\(extra.count) bytes appended")
        default:
            let at = Int.random(in: 0...bytes.count, using: &rng)
            let extra = random(1...40, using: &rng)
            bytes.insert(contentsOf: extra, at: at)
            return (bytes, "\(extra.count) bytes inserted at \(at)")
        }
    }

    /// Whether `needle` occurs in `haystack`, searched by Foundation (an optimised library: a backup can hold
    /// hundreds of megabytes, which the tests' own debug build would search a thousand times slower).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        Data(haystack).range(of: Data(needle)) != nil
    }

    static func random(_ counts: ClosedRange<Int>, using rng: inout SeededGenerator) -> [UInt8] {
        (0..<Int.random(in: counts, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// The bytes of the regular file at `path`; nil for anything else (a FIFO an earlier step made is never opened).
    static func regularFile(_ path: String) -> [UInt8]? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? FileDescriptor.open(path, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK).readAll()
    }

    /// Damages the bytes of the regular file at `path` in place; what was done (nil: not a regular file).
    static func damage(_ path: String, using rng: inout SeededGenerator) throws -> String? {
        guard let bytes = regularFile(path) else { return nil }
        let (changed, step) = damaged(bytes, using: &rng)
        try Data(changed).write(to: URL(fileURLWithPath: path))
        return step
    }

    /// Puts something else where `path` is: a symlink to one of `targets`, a directory, a FIFO, nothing; what.
    static func replace(_ path: String, symlinkTargets targets: [String], using rng: inout SeededGenerator) -> String {
        removeTree(path)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            let target = targets.randomElement(using: &rng)!
            symlink(target, path)
            return "a symlink to \(target)"
        case 1:
            mkdir(path, 0o755)
            return "a directory"
        case 2:
            mkfifo(path, 0o644)
            return "a FIFO"
        default:
            return "removed"
        }
    }
}
