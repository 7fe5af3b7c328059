// BackupFileRecordTests: the MBFile blob is a keyed archive laid out as devices write it, read by plistlib.
import Foundation
import MobileSyncKit
import PropertyListKit
import Testing

@Suite struct BackupFileRecordTests {
    private func archive(_ record: BackupFileRecord) throws -> [String: Any] {
        let json = try PythonOracle.run(PythonOracle.plistToJSON, input: record.archived())
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    private func uid(_ value: Any?) -> Int? { ((value as? [String: Any])?["UID"] as? NSNumber)?.intValue }

    private let file = BackupFileRecord(
        kind: .file, relativePath: "Library/Preferences/group.x.plist", mode: 0o100644, userID: 501, groupID: 501,
        inode: 12345, size: 42, birth: 1_600_000_000, lastModified: 1_600_000_001, lastStatusChange: 1_600_000_002,
        protectionClass: 3)

    @Test func aFileIsAnMBFileWithItsRootAtIndexOne() throws {
        let read = try archive(file)
        #expect(read["$archiver"] as? String == "NSKeyedArchiver")
        #expect((read["$version"] as? NSNumber)?.intValue == 100_000)
        #expect(uid((read["$top"] as? [String: Any])?["root"]) == 1)
        let objects = try #require(read["$objects"] as? [Any])
        #expect(objects.count == 4)
        #expect(objects[0] as? String == "$null")
        let root = try #require(objects[1] as? [String: Any])
        let pathIndex = try #require(uid(root["RelativePath"]))
        #expect(objects[pathIndex] as? String == "Library/Preferences/group.x.plist")
        let classIndex = try #require(uid(root["$class"]))
        let mbClass = try #require(objects[classIndex] as? [String: Any])
        #expect(mbClass["$classname"] as? String == "MBFile")
        #expect(mbClass["$classes"] as? [String] == ["MBFile", "NSObject"])
        let numbers = ["Mode": 0o100644, "UserID": 501, "GroupID": 501, "InodeNumber": 12345, "Size": 42,
            "Birth": 1_600_000_000, "LastModified": 1_600_000_001, "LastStatusChange": 1_600_000_002,
            "ProtectionClass": 3, "Flags": 0]
        for (key, value) in numbers { #expect((root[key] as? NSNumber)?.intValue == value, "\(key)") }
        #expect(root["Target"] == nil && root["EncryptionKey"] == nil && root["ExtendedAttributes"] == nil)
    }

    @Test func optionalObjectsFollowThePathInTheDevicesOrder() throws {
        var record = file
        record.kind = .symlink
        record.target = "/var/mobile/Library/x"
        record.encryptionKey = [4, 0, 0, 0] + [UInt8](repeating: 9, count: 40)
        record.extendedAttributes = [("com.apple.metadata:com_apple_backup_excludeItem", Array("com.apple.backupd".utf8))]
        let objects = try #require(try archive(record)["$objects"] as? [Any])
        #expect(objects.count == 8)
        let root = try #require(objects[1] as? [String: Any])
        #expect(uid(root["Target"]) == 3 && objects[3] as? String == "/var/mobile/Library/x")
        #expect(uid(root["EncryptionKey"]) == 4)
        let key = try #require(objects[4] as? [String: Any])
        #expect((key["NS.data"] as? [String: String])?["data"] == "04000000" + String(repeating: "09", count: 40))
        #expect(uid(key["$class"]) == 5)
        #expect((objects[5] as? [String: Any])?["$classname"] as? String == "NSMutableData")
        #expect(uid(root["ExtendedAttributes"]) == 6)
        let attributes = try #require((objects[6] as? [String: String])?["data"])
        let inner = try PythonOracle.run(
            "import plistlib, sys; d = plistlib.loads(bytes.fromhex(sys.argv[1])); print(d['com.apple.metadata:com_apple_backup_excludeItem'].decode())",
            arguments: [attributes])
        #expect(inner == "com.apple.backupd\n")
        #expect(uid(root["$class"]) == 7 && (objects[7] as? [String: Any])?["$classname"] as? String == "MBFile")
    }
}

/// The record's keyed archive as a tree, written by the general writer: what `archived()` must equal byte for byte.
@Suite struct KeyedRecordEncoderTests {
    static func tree(_ record: BackupFileRecord) -> PropertyListObject {
        func classObject(_ name: String, _ classes: [String]) -> PropertyListObject {
            .dictionary([("$classes", .array(classes.map { .string($0) })), ("$classname", .string(name))])
        }
        var objects: [PropertyListObject] = [.string("$null"), .dictionary([]), .string(record.relativePath)]
        var root: [(String, PropertyListObject)] = [
            ("LastModified", .integer(record.lastModified)), ("Flags", .integer(0)),
            ("GroupID", .integer(Int64(record.groupID))), ("LastStatusChange", .integer(record.lastStatusChange)),
            ("Birth", .integer(record.birth)), ("ProtectionClass", .integer(Int64(record.protectionClass))),
            ("InodeNumber", .integer(Int64(bitPattern: record.inode))), ("Mode", .integer(Int64(record.mode))),
            ("Size", .integer(Int64(bitPattern: record.size))), ("UserID", .integer(Int64(record.userID))),
            ("RelativePath", .uid(2)),
        ]
        if let target = record.target {
            root.append(("Target", .uid(UInt64(objects.count))))
            objects.append(.string(target))
        }
        if let key = record.encryptionKey {
            let index = UInt64(objects.count)
            root.append(("EncryptionKey", .uid(index)))
            objects.append(.dictionary([("NS.data", .data(key)), ("$class", .uid(index + 1))]))
            objects.append(classObject("NSMutableData", ["NSMutableData", "NSData", "NSObject"]))
        }
        if !record.extendedAttributes.isEmpty {
            root.append(("ExtendedAttributes", .uid(UInt64(objects.count))))
            objects.append(.data(BinaryPropertyListWriter.encode(
                .dictionary(record.extendedAttributes.map { ($0.0, .data($0.1)) }))))
        }
        root.append(("$class", .uid(UInt64(objects.count))))
        objects.append(classObject("MBFile", ["MBFile", "NSObject"]))
        objects[1] = .dictionary(root)
        return .dictionary([
            ("$version", .integer(100_000)), ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", .uid(1))])), ("$objects", .array(objects)),
        ])
    }

    @Test func everyShapeOfRecordEncodesAsTheGeneralWriterWritesIt() {
        let paths = ["", "Documents", "Résumé 📱/" + String(repeating: "long name ", count: 40), "a"]
        var checked = 0
        var reused = KeyedRecordEncoder()
        for path in paths {
            for target in [nil, "/var/mobile/x", "/var/mobile/Ünïcode"] as [String?] {
                for key in [nil, [UInt8](repeating: 7, count: 44)] as [[UInt8]?] {
                    for attributes in [[], [("com.apple.x", [UInt8](repeating: 1, count: 300))]] as [[(String, [UInt8])]] {
                        let record = BackupFileRecord(
                            kind: .file, relativePath: path, mode: 0o100644, userID: 501, groupID: 501,
                            inode: UInt64.max, size: 1 << 40, birth: -5, lastModified: Int64.max, lastStatusChange: 0,
                            protectionClass: 3, target: target, extendedAttributes: attributes, encryptionKey: key)
                        let expected = BinaryPropertyListWriter.encode(Self.tree(record))
                        #expect(record.archived() == expected, "\(path) \(target ?? "-")")
                        // One encoder reused from shape to shape (as the row writer reuses it) leaves nothing behind.
                        #expect(reused.withArchive(of: record) { Array($0) } == expected)
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 48)
    }
}
