// MemberData: a file member's data by restore's rules, read once for restore and verify alike.
import TarKit

/// Reads a regular file member's data blocks as restore takes them: each block starts at or after the end of the one
/// before and ends within the member's size; the gaps before blocks (sparse holes) are hashed as zeros; data missing
/// at the end is a hole only in a sparse member, and otherwise a problem. `digest`, when given, gets every byte, holes
/// as zeros; `collected`, when not nil, the file's bytes (a device plist, checked after); `block` each block at its
/// offset and `hole` the length of each hole in order between them (the restore's writer thread, which hashes what
/// it writes). `interruption` is asked at each block and through long holes.
enum MemberData {
    /// Data framing restore refuses, in its words.
    struct Problem: Error, Equatable {
        let reason: String
    }

    /// Reads the data; returns whether the member ends in a hole (the file must be extended to `size`). The first
    /// problem is thrown at once, or, with `drain` (verify, which reads on), after the rest of the member's blocks
    /// were read and hashed (without holes or collection past the problem).
    static func read(
        _ member: ArchiveReader.Member, size: UInt64, from reader: any FormatSource, digest: SHA256Digest?,
        collecting collected: inout [UInt8]?, drain: Bool = false, interruption: () throws -> Void,
        block: (UnsafeRawBufferPointer, UInt64) throws -> Void = { _, _ in },
        hole: (UInt64) throws -> Void = { _ in }
    ) throws -> Bool {
        var position: UInt64 = 0
        var problem: Problem?
        while let data = try reader.readBlock() {
            try interruption()
            let offset = UInt64(max(0, data.offset))
            if problem == nil && (offset < position || offset &+ UInt64(data.bytes.count) > size) {
                problem = Problem(reason: "data blocks overlap or run past the member's size")
                if !drain { throw problem! }
            }
            if problem == nil {
                if offset > position {
                    if let digest { try hashZeros(offset - position, into: digest, interruption: interruption) }
                    try hole(offset - position)
                }
                if collected != nil {
                    collected!.append(contentsOf: repeatElement(0, count: Int(offset - position)))
                    collected!.append(contentsOf: data.bytes)
                }
                try block(data.bytes, offset)
            }
            digest?.update(data.bytes)
            position = offset + UInt64(data.bytes.count)
        }
        let endsInHole = position < size
        if endsInHole && member.isSparse {
            if let digest { try hashZeros(size - position, into: digest, interruption: interruption) }
            if problem == nil {
                collected?.append(contentsOf: repeatElement(0, count: Int(size - position)))
                try hole(size - position)
            }
        } else if endsInHole && problem == nil {
            problem = Problem(reason: "\(size - position) bytes of data missing")
        }
        if let problem { throw problem }
        return endsInHole
    }

    /// Hashes a sparse hole as zeros (a hole can be huge: `interruption` is asked at each 64 KiB).
    private static func hashZeros(_ count: UInt64, into digest: SHA256Digest, interruption: () throws -> Void) throws {
        var remaining = count
        while remaining > 0 {
            try interruption()
            let chunk = Int(min(remaining, UInt64(zeros.count)))
            zeros.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<chunk])) }
            remaining -= UInt64(chunk)
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 64 * 1024)
}
