// BinaryPropertyListReaderTests: the reader gives back what the writer and Python's plistlib wrote, and refuses
// hostile bytes (cycles, shared-object bombs, offsets and counts past the end) with a reason, never a trap:
// 6,000 seeded mutations of real records each decode or are refused.
import Foundation
import MobileSyncKit
import PropertyListKit
import SystemKit
import TestSupport
import Testing

@Suite struct BinaryPropertyListReaderTests {
    static let sample = PropertyListObject.dictionary([
        ("string", .string("Library/Preferences/group.x.plist")), ("unicode", .string("Résumé 📱")),
        ("integers", .array([.integer(0), .integer(255), .integer(65_536), .integer(Int64.max), .integer(-1)])),
        ("real", .real(2.5)), ("bool", .bool(true)), ("data", .data([0, 1, 2])),
        ("date", .date(Date(timeIntervalSince1970: 1_700_000_000))), ("uid", .uid(3)),
        ("nested", .dictionary([("array", .array((0..<20).map { .string("item \($0)") }))])),
    ])

    @Test func whatTheWriterWritesReadsBackEqual() throws {
        let bytes = BinaryPropertyListWriter.encode(Self.sample)
        #expect(try BinaryPropertyListReader.read(bytes, limits: .properties) == Self.sample)
    }

    @Test func whatPlistlibWritesReadsBack() throws {
        let hex = try PythonOracle.run("""
            import plistlib, datetime
            value = {'a': [1, 2.5, True, b'xy', plistlib.UID(7), 'Résumé'], 'd': datetime.datetime(2020, 1, 1)}
            print(plistlib.dumps(value, fmt=plistlib.FMT_BINARY).hex())
            """).trimmingCharacters(in: .whitespacesAndNewlines)
        let value = try BinaryPropertyListReader.read(Array(Data(hexString: hex)), limits: .properties)
        #expect(value["a"] == .array([.integer(1), .real(2.5), .bool(true), .data([0x78, 0x79]), .uid(7), .string("Résumé")]))
        #expect(value["d"]?.date == Date(timeIntervalSince1970: 1_577_836_800))
    }

    /// `bplist00`, objects, an offset table of 1-byte offsets, and a trailer with 1-byte references.
    static func handMade(_ objects: [[UInt8]], top: Int = 0) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count), 0, 0, 0, 0, 0, 0, 0, UInt8(top)]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return bytes
    }

    @Test(arguments: [
        // An array holding itself: refused by the depth cap, not followed forever.
        ("cycle", handMade([[0xA1, 0]]), "nested deeper"),
        // Ten arrays, each holding the next one ten times: 10^10 values from 11 objects.
        ("shared bomb", handMade((0..<10).map { index in [0xAA] + [UInt8](repeating: UInt8(index + 1), count: 10) } + [[0x08]]),
         "more than"),
        ("reference past the objects", handMade([[0xA1, 9]]), "missing object"),
        ("string past its data", handMade([[0x5F, 0x10, 0xFF, 0x41]]), "past"),
        ("non-string key", handMade([[0xD1, 1, 1], [0x10, 1]]), "key that is not a string"),
        ("a set", handMade([[0xC0]]), "unsupported"),
        ("16-byte integer", handMade([[0x14] + [UInt8](repeating: 0, count: 16)]), "wider than 8"),
        ("bad UTF-16", handMade([[0x61, 0xD8, 0x00]]), "not valid UTF-16"),
        ("not ASCII", handMade([[0x51, 0xC3]]), "not ASCII"),
    ])
    func hostileStructuresAreRefusedWithAReason(_ name: String, _ bytes: [UInt8], _ reason: String) {
        // The property lists' limits (depth 16): the bomb is ten levels deep, so the value cap stops it.
        #expect {
            try BinaryPropertyListReader.read(bytes, limits: .properties)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func aTrailerPromisingMoreThanTheFileIsRefused() {
        var bytes = Self.handMade([[0x08]])
        bytes[bytes.count - 17] = 200  // 200 objects in a 50-byte file
        #expect(throws: PropertyListReadError.self) { try BinaryPropertyListReader.read(bytes, limits: .record) }
        bytes = Self.handMade([[0x08]])
        bytes[bytes.count - 1] = 250  // the offset table past the end
        #expect(throws: PropertyListReadError.self) { try BinaryPropertyListReader.read(bytes, limits: .record) }
        #expect(throws: PropertyListReadError.self) { try BinaryPropertyListReader.read(Array("bplist00".utf8), limits: .record) }
    }

    @Test func seededMutationsOfRealRecordsDecodeOrAreRefusedNeverTrap() throws {
        let record = BackupFileRecord(
            kind: .symlink, relativePath: "Documents/link", mode: 0o120755, userID: 501, groupID: 501, inode: 9,
            size: 0, birth: 1, lastModified: 2, lastStatusChange: 3, protectionClass: 0, target: "/var/mobile/x",
            extendedAttributes: [("com.apple.x", [1, 2, 3])], encryptionKey: [UInt8](repeating: 4, count: 44))
        let original = record.archived()
        var generator = SeededGenerator(seed: 20_261_202)
        var decoded = 0, refused = 0
        for _ in 0..<6_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                default: bytes[at] = [0x00, 0xFF, 0x0F, 0x7F, 0x80][Int.random(in: 0..<5, using: &generator)]
                }
            }
            do {
                _ = try KeyedArchiveReader.record(bytes, kind: .symlink)
                decoded += 1
            } catch {
                refused += 1
            }
        }
        #expect(decoded + refused == 6_000 && refused > 0 && decoded > 0, "decoded \(decoded), refused \(refused)")
    }
}

extension Data {
    init(hexString: String) {
        self.init(Hex.decode(Array(hexString.utf8)) ?? [])
    }
}
