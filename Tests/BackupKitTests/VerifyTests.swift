// VerifyTests: `ArchiveVerification` names each bad member (missing, extra, size, digest) and structure problems.
import BackupKit
import Foundation
import TarKit
import TestSupport
import Testing

@Suite struct VerifyTests {
    static let a = TestMember.file("a", Array("alpha".utf8))
    static let b = TestMember.file("b", Array("bravo".utf8))
    static let c = TestMember.file("c", Array("charlie".utf8))

    /// An archive holding `members` whose manifest was computed for `manifestFor`.
    static func archive(_ members: [TestMember], manifestFor listed: [TestMember]) -> [UInt8] {
        var listedBuilder = TarBuilder()
        for member in listed { listedBuilder.add(member) }
        let start = listedBuilder.bytes.count
        listedBuilder.manifest()
        let manifestMember = Array(listedBuilder.bytes[start...])
        var builder = TarBuilder()
        for member in members { builder.add(member) }
        builder.append(raw: manifestMember)
        builder.end()
        return builder.bytes
    }

    static func verify(_ bytes: [UInt8]) throws -> VerifyReport {
        try withTemporaryDirectory { base in
            try Data(bytes).write(to: URL(fileURLWithPath: base + "/a.tar"))
            return try ArchiveVerification.verify(archive: base + "/a.tar")
        }
    }

    /// `--max-bytes` values for verify and list.
    @Test func expansionLimitsParse() {
        #expect(ExpansionLimit(parsing: "1000000")?.dataBytes == 1_000_000)
        #expect(ExpansionLimit(parsing: "512M")?.dataBytes == 512 << 20)
        #expect(ExpansionLimit(parsing: "200g")?.dataBytes == 200 << 30)
        #expect(ExpansionLimit(parsing: "2T")?.dataBytes == 2 << 40)
        for bad in ["", "G", "12x", "-5", "1.5G", "99999999999T", "١٢"] {
            #expect(ExpansionLimit(parsing: bad) == nil, "\(bad)")
        }
        #expect(ExpansionLimit.reading.dataBytes == 1 << 36)
        #expect(ExpansionLimit.unlimited.streamBytes == .max)
        #expect(ExpansionLimit(dataBytes: 4 << 20).streamBytes == (4 << 20) + (1 << 20) + (256 << 20))
    }

    @Test func missingMemberIsNamed() throws {
        let report = try Self.verify(Self.archive([Self.a, Self.c], manifestFor: [Self.a, Self.b, Self.c]))
        #expect(!report.isValid)
        #expect(report.problems.contains("missing member 'b': in the manifest but not in the archive"))
        #expect(!report.problems.contains { $0.contains("'c'") && $0.contains("missing") })
    }

    @Test func extraMemberIsNamed() throws {
        let report = try Self.verify(Self.archive([Self.a, Self.b, Self.c], manifestFor: [Self.a, Self.c]))
        #expect(report.problems.contains("extra member 'b': in the archive but not in the manifest"))
    }

    @Test func sizeAndDigestMismatchesAreNamed() throws {
        let bigger = TestMember.file("b", Array("bravo!".utf8))
        let other = TestMember.file("c", Array("CHARLIE".utf8))
        let report = try Self.verify(Self.archive([Self.a, bigger, other], manifestFor: [Self.a, Self.b, Self.c]))
        #expect(report.problems.contains("size mismatch for 'b': 6 bytes in the archive, 5 in the manifest"))
        #expect(report.problems.contains("SHA-256 mismatch for 'c': the data differs from what the manifest recorded"))
        #expect(!report.problems.contains { $0.contains("'a'") })
    }

    @Test func hostileMembersAndTruncationAreReported() throws {
        var builder = TarBuilder()
        builder.raw("../escape", data: [1])
        builder.raw("fifo", type: "6")
        builder.raw("link", type: "2", link: "/etc/passwd")
        builder.end()
        let report = try Self.verify(builder.bytes)
        #expect(report.problems.contains { $0.contains("'../escape'") && $0.contains("'..' component") })
        #expect(report.problems.contains { $0.contains("'fifo'") && $0.contains("fifo") })
        #expect(report.problems.contains { $0.contains("'link'") && $0.contains("absolute") })
        #expect(report.problems.contains { $0.contains("no devicectl manifest") })

        let whole = Self.archive([Self.a, Self.b, Self.c], manifestFor: [Self.a, Self.b, Self.c])
        #expect(try Self.verify(whole).isValid)
        let cut = try Self.verify(Array(whole[..<(whole.count / 2)]))
        #expect(cut.problems.contains { $0.lowercased().contains("truncated") }, "\(cut.problems)")
    }

    @Test func aDamagedHeaderIsNamedByTheMemberBeforeIt() throws {
        var bytes = Self.archive([Self.a, Self.b, Self.c], manifestFor: [Self.a, Self.b, Self.c])
        // The ustar header of 'c' (its name field, then the magic at 257), its checksum zeroed.
        let header = try #require(
            stride(from: 0, to: bytes.count - 512, by: 512).first { at in
                bytes[at] == UInt8(ascii: "c") && bytes[at + 1] == 0 && Array(bytes[(at + 257)..<(at + 262)]) == Array("ustar".utf8)
            })
        for index in 148..<156 { bytes[header + index] = UInt8(ascii: "0") }
        let report = try Self.verify(bytes)
        #expect(report.problems.contains { $0.contains("after member 'b'") }, "\(report.problems)")
        // libarchive's message, not the name of the libarchive call that failed.
        #expect(!report.problems.contains { $0.contains("archive_read") }, "\(report.problems)")
    }

    @Test func compressedArchivesVerify() throws {
        let whole = Self.archive([Self.a, Self.b, Self.c], manifestFor: [Self.a, Self.b, Self.c])
        for tool in ["gzip", "xz", "zstd", "bzip2"] {
            let compressed = try Shell.run(tool, ["-c"], input: Data(whole))
            let report = try Self.verify([UInt8](compressed.stdoutData))
            #expect(report.isValid, "\(tool): \(report.problems)")
            #expect(report.filters == [tool == "zstd" ? "zstd" : tool == "xz" ? "xz" : tool])
            // A cut compressed stream fails too.
            let data = [UInt8](compressed.stdoutData)
            #expect(!(try Self.verify(Array(data[..<(data.count - 9)])).isValid), "\(tool) truncated")
        }
    }
}
