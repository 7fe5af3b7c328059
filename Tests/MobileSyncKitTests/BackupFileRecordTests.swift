// BackupFileRecordTests: the MBFile blob is a keyed archive laid out as devices write it, read by plistlib.
import Foundation
import MobileSyncKit
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
