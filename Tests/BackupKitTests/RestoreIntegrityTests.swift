// RestoreIntegrityTests: a truncated archive or one flipped byte anywhere fails restore and verify, ROOT untouched.
import BackupKit
import Foundation
import TestSupport
import Testing

@Suite struct RestoreIntegrityTests {
    /// A small archive with every kind of member, pax headers, xattrs and a full manifest.
    static let archive = TarBuilder.archive(
        RestoreTests.members.map { member in
            if case .file(let path, let data, let mode, let mtime, let nanos, let xattrs) = member, data.count > 2000 {
                return .file(path, Array(data.prefix(1500)), mode: mode, mtime: mtime, nanos: nanos, xattrs: xattrs)
            }
            return member
        })

    /// Offset just past the first end-of-archive block: everything before it carries content.
    static var contentEnd: Int {
        var offset = 0
        while offset + 512 <= archive.count {
            if archive[offset..<(offset + 512)].allSatisfy({ $0 == 0 }) { return offset + 512 }
            offset += 512
        }
        return archive.count
    }

    @Test func intactArchiveVerifiesAndRestores() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(Self.archive)
            let report = try ArchiveVerification.verify(archive: scratch.archive)
            #expect(report.isValid, "\(report.problems)")
            #expect(report.metadataChecked)
            #expect(try scratch.restore().verified)
        }
    }

    @Test func truncationAnywhereFails() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let before = try TreeSnapshot.take(scratch.root)
            let end = Self.contentEnd
            var offsets = Set(stride(from: 0, to: end, by: 53))
            for block in stride(from: 0, to: end, by: 512) { offsets.formUnion([block, block + 1, block + 511]) }
            for offset in offsets.sorted() where offset < end {
                try scratch.write(Array(Self.archive[..<offset]))
                #expect(throws: RestoreError.self, "restore of the first \(offset) bytes") { try scratch.restore() }
                let verify = try? ArchiveVerification.verify(archive: scratch.archive)
                #expect(verify?.isValid != true, "verify of the first \(offset) bytes")
            }
            #expect(try TreeSnapshot.take(scratch.root) == before)
        }
    }

    @Test func flippedByteAnywhereFails() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let before = try TreeSnapshot.take(scratch.root)
            var positions = Set(stride(from: 0, to: Self.archive.count, by: 61))
            for block in stride(from: 0, to: Self.archive.count, by: 512) {
                for delta in [0, 148, 156, 300, 511] { positions.insert(block + delta) }
            }
            for position in positions.sorted() where position < Self.archive.count {
                do {
                    let flip: UInt8 = position % 2 == 0 ? 0x01 : 0x80
                    var damaged = Self.archive
                    damaged[position] ^= flip
                    try scratch.write(damaged)
                    #expect(throws: RestoreError.self, "restore with byte \(position) ^ \(flip)") {
                        try scratch.restore()
                    }
                    let verify = try? ArchiveVerification.verify(archive: scratch.archive)
                    #expect(verify?.isValid != true, "verify with byte \(position) ^ \(flip)")
                }
            }
            #expect(try TreeSnapshot.take(scratch.root) == before)
        }
    }
}

/// Seeded random corruption: never a crash, never a restore of a changed archive, ROOT never touched.
@Suite struct RestoreFuzzTests {
    @Test func randomCorruption() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let before = try TreeSnapshot.take(scratch.root)
            let archive = RestoreIntegrityTests.archive
            let contentEnd = RestoreIntegrityTests.contentEnd
            var rng = SeededGenerator(seed: 20261129)
            for round in 0..<400 {
                var damaged = archive
                switch round % 3 {
                case 0:  // a few random bytes anywhere in the content
                    for _ in 0..<Int.random(in: 1...8, using: &rng) {
                        let position = Int.random(in: 0..<contentEnd, using: &rng)
                        damaged[position] = damaged[position] &+ UInt8.random(in: 1...255, using: &rng)
                    }
                case 1:  // cut inside the content, then garbage
                    let cut = Int.random(in: 0..<contentEnd, using: &rng)
                    damaged =
                        Array(damaged[..<cut])
                        + (0..<Int.random(in: 0...2000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng)
                        }
                default:  // two different content blocks swapped
                    let blocks = contentEnd / 512
                    let a = Int.random(in: 0..<blocks, using: &rng) * 512
                    let b = Int.random(in: 0..<blocks, using: &rng) * 512
                    guard damaged[a..<(a + 512)] != damaged[b..<(b + 512)] else { continue }
                    let saved = Array(damaged[a..<(a + 512)])
                    damaged.replaceSubrange(a..<(a + 512), with: damaged[b..<(b + 512)])
                    damaged.replaceSubrange(b..<(b + 512), with: saved)
                }
                try scratch.write(damaged)
                #expect((try? ArchiveVerification.verify(archive: scratch.archive))?.isValid != true, "round \(round)")
                if round % 4 == 0 {
                    #expect(throws: RestoreError.self, "round \(round)") { try scratch.restore() }
                }
            }
            #expect(try TreeSnapshot.take(scratch.root) == before)
        }
    }
}
