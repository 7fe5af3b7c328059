// NarrowNamesTests: what libarchive's own wide-name check makes of a regular member whose name ends in '/' (an old
// tar's directory): a directory, ASCII or not. The test binary exports no symbols, so libarchive's own
// `archive_entry_pathname_w` runs here; NarrowNamesEndToEndTests reads the same members with the shipped binary,
// where devicectl's definition answers NULL and libarchive looks at the narrow name (NarrowNames.c).
import Foundation
import TarKit
import TestSupport
import Testing

@Suite struct NarrowNamesTests {
    /// A regular member ('0') named with a trailing '/' is a directory: ASCII in a ustar name field, UTF-8 in a pax
    /// path, and in a header without the ustar magic (old tar). The member after them is read in step.
    @Test func aRegularMemberWhoseNameEndsInSlashIsADirectory() throws {
        try withTemporaryDirectory { dir in
            let archive = TarBuilder.raw { tar in
                tar.raw("Library/Old/")
                tar.raw("Library/Caf\u{E9}/")
                tar.header(
                    name: Array("Library/V7/".utf8), type: UInt8(ascii: "0"),
                    patch: Dictionary(uniqueKeysWithValues: (257..<265).map { ($0, UInt8(0)) }))
                tar.raw("Library/after", data: Array("after".utf8))
            }
            let path = dir + "/a.tar"
            try Data(archive).write(to: URL(fileURLWithPath: path))
            let reader = try ArchiveReader(path: path)
            defer { try? reader.close() }
            var members: [(String, ArchiveReader.Kind)] = []
            while let member = try reader.next() {
                members.append((String(decoding: member.pathBytes, as: UTF8.self), member.kind))
                try reader.skipData()
            }
            #expect(members.map(\.0) == ["Library/Old/", "Library/Caf\u{E9}/", "Library/V7/", "Library/after"])
            #expect(members.map(\.1) == [.directory, .directory, .directory, .regular])
        }
    }
}
