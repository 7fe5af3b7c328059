// ArchiveMutator: deterministic mutations of valid archives: bit flips, byte noise, truncations, garbage,
// duplicated, reordered, dropped and spliced members, rewritten header fields and pax records, a damaged
// manifest, random streams. Each mutation is described so a failing case can be read and reproduced.
import Foundation
import TestSupport

/// Mutates archives with a seeded generator: the same seed and input always give the same output.
struct ArchiveMutator {
    enum Operator: String, CaseIterable {
        case flipBits, setBytes, truncate, truncateAndEnd, appendGarbage, insertBytes
        case duplicateMember, swapMembers, moveMember, dropMember, spliceMember
        case headerField, paxRecord, manifestText, memberData, randomStream

        /// Operators that need an uncompressed tar.
        var structural: Bool {
            switch self {
            case .flipBits, .setBytes, .truncate, .appendGarbage, .insertBytes, .randomStream: false
            default: true
            }
        }
    }

    var rng: SeededGenerator
    /// Other valid tars to take members from.
    let donors: [[UInt8]]
    private(set) var steps: [String] = []

    init(seed: UInt64, donors: [[UInt8]]) {
        rng = SeededGenerator(seed: seed)
        self.donors = donors
    }

    /// One to three mutations of `input` (structural ones only when `plain`).
    mutating func mutate(_ input: [UInt8], plain: Bool) -> [UInt8] {
        var bytes = input
        let available = Operator.allCases.filter { plain || !$0.structural }
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let chosen = available.randomElement(using: &rng)!
            bytes = apply(chosen, to: bytes)
            if chosen == .randomStream { break }
        }
        return bytes
    }

    mutating func apply(_ op: Operator, to input: [UInt8]) -> [UInt8] {
        var bytes = input
        let layout = TarLayout(bytes)
        switch op {
        case .flipBits:
            guard !bytes.isEmpty else { return bytes }
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let position = position(in: bytes)
                let bit = UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                bytes[position] ^= bit
                note("flip byte \(position) ^ \(bit)")
            }
        case .setBytes:
            guard !bytes.isEmpty else { return bytes }
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let position = position(in: bytes)
                let value = interestingByte()
                bytes[position] = value
                note("set byte \(position) = \(value)")
            }
        case .truncate:
            let cut = boundaryBiased(in: bytes.count)
            note("truncate to \(cut) of \(bytes.count)")
            bytes.removeSubrange(cut...)
        case .truncateAndEnd:
            // Cut at a member boundary and end the archive properly: members (maybe the manifest) vanish.
            guard !layout.entries.isEmpty else { return bytes }
            let entry = layout.entries.randomElement(using: &rng)!
            note("cut before member '\(text(entry.name))' at \(entry.range.lowerBound), then an end mark")
            bytes = Array(bytes[..<entry.range.lowerBound]) + [UInt8](repeating: 0, count: 1024)
        case .appendGarbage:
            let garbage = randomBytes(Int.random(in: 1...1500, using: &rng))
            note("append \(garbage.count) random bytes")
            bytes += garbage
        case .insertBytes:
            let at = boundaryBiased(in: bytes.count)
            let inserted =
                Bool.random(using: &rng)
                ? randomBytes(Int.random(in: 1...600, using: &rng))
                : [UInt8](repeating: 0, count: 512 * Int.random(in: 1...2, using: &rng))
            note("insert \(inserted.count) bytes at \(at)")
            bytes.insert(contentsOf: inserted, at: at)
        case .duplicateMember:
            guard let entry = layout.entries.randomElement(using: &rng) else { return bytes }
            let copy = Array(bytes[entry.range])
            let target = memberBoundary(layout)
            note("duplicate member '\(text(entry.name))' at \(target)")
            bytes.insert(contentsOf: copy, at: target)
        case .swapMembers:
            guard layout.entries.count >= 2 else { return bytes }
            var pair = (0..<layout.entries.count).shuffled(using: &rng).prefix(2).sorted()
            if pair[0] == pair[1] { pair[1] = (pair[0] + 1) % layout.entries.count }
            let (a, b) = (layout.entries[pair[0]], layout.entries[pair[1]])
            note("swap members '\(text(a.name))' and '\(text(b.name))'")
            bytes =
                Array(bytes[..<a.range.lowerBound]) + bytes[b.range] + bytes[a.range.upperBound..<b.range.lowerBound]
                + bytes[a.range] + bytes[b.range.upperBound...]
        case .moveMember:
            guard let entry = layout.entries.randomElement(using: &rng) else { return bytes }
            let moved = Array(bytes[entry.range])
            bytes.removeSubrange(entry.range)
            let rest = TarLayout(bytes)
            let target = memberBoundary(rest)
            note("move member '\(text(entry.name))' to \(target)")
            bytes.insert(contentsOf: moved, at: target)
        case .dropMember:
            guard let entry = layout.entries.randomElement(using: &rng) else { return bytes }
            note("drop member '\(text(entry.name))'")
            bytes.removeSubrange(entry.range)
        case .spliceMember:
            guard let donor = donors.randomElement(using: &rng) else { return bytes }
            let donorLayout = TarLayout(donor)
            guard let entry = donorLayout.entries.randomElement(using: &rng) else { return bytes }
            let target = memberBoundary(layout)
            note("splice member '\(text(entry.name))' from another archive at \(target)")
            bytes.insert(contentsOf: donor[entry.range], at: target)
        case .headerField:
            guard let entry = layout.entries.randomElement(using: &rng) else { return bytes }
            mutateHeader(&bytes, entry)
        case .paxRecord:
            guard let entry = layout.entries.randomElement(using: &rng) else { return bytes }
            mutatePax(&bytes, entry)
        case .manifestText:
            guard let entry = layout.manifest ?? layout.entries.last else { return bytes }
            mutateManifest(&bytes, entry)
        case .memberData:
            let withData = layout.entries.filter {
                $0.type == UInt8(ascii: "0") && $0.range.upperBound - $0.header > 512
            }
            guard let entry = withData.randomElement(using: &rng) else { return bytes }
            let position = Int.random(in: (entry.header + 512)..<entry.range.upperBound, using: &rng)
            let bit = UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            note("flip data byte \(position) ^ \(bit) of '\(text(entry.name))'")
            bytes[position] ^= bit
        case .randomStream:
            let length = Int.random(in: 0...4096, using: &rng)
            if Bool.random(using: &rng), let entry = layout.entries.first {
                bytes = Array(bytes[entry.range.lowerBound..<(entry.header + 512)]) + randomBytes(length)
                note("first header, then \(length) random bytes")
            } else {
                bytes = randomBytes(length)
                note("\(length) random bytes")
            }
        }
        return bytes
    }

    // MARK: - Positions and values

    mutating func note(_ step: String) {
        steps.append(step)
    }

    /// A position, often inside a header block (where most of the parsing happens).
    mutating func position(in bytes: [UInt8]) -> Int {
        if Bool.random(using: &rng) {
            let layout = TarLayout(bytes)
            if let entry = layout.entries.randomElement(using: &rng) {
                return min(bytes.count - 1, entry.header + Int.random(in: 0..<512, using: &rng))
            }
        }
        return Int.random(in: 0..<bytes.count, using: &rng)
    }

    /// A cut or insertion point, half the time on or next to a 512-byte boundary.
    mutating func boundaryBiased(in count: Int) -> Int {
        guard count > 0 else { return 0 }
        if Bool.random(using: &rng) {
            let block = Int.random(in: 0...(count / 512), using: &rng) * 512
            return max(0, min(count, block + Int.random(in: -1...1, using: &rng)))
        }
        return Int.random(in: 0...count, using: &rng)
    }

    /// A member boundary of `layout` (or the trailer).
    mutating func memberBoundary(_ layout: TarLayout) -> Int {
        let boundaries = layout.entries.map(\.range.lowerBound) + [layout.trailer]
        return boundaries.randomElement(using: &rng)!
    }

    mutating func interestingByte() -> UInt8 {
        [
            0, 0xFF, 0x7F, 0x80, 0x20, UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "0"), UInt8(ascii: "7"),
            UInt8(ascii: "x"), UInt8(ascii: "\n"), UInt8.random(in: 0...255, using: &rng),
        ].randomElement(using: &rng)!
    }

    mutating func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(60), as: UTF8.self)
    }
}
