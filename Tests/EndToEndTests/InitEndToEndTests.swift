// InitEndToEndTests: `devicectl init` through the binary: identity, layout, refusals that change nothing.
import Foundation
import TestSupport
import Testing

@Suite struct InitEndToEndTests {
    @Test func initCreatesADeviceWithItsOwnIdentity() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let result = try phone.ok(["init", phone.root])
            let udid = try #require(
                result.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(result.stdout.hasPrefix("initialised device root \(phone.root) with UDID "))
            #expect(UUID(uuidString: udid) != nil)

            let identity = try PhoneScratch.plistDictionary("\(phone.root)/DeviceLocal/identity.plist")
            #expect(identity["UDID"] as? String == udid)
            #expect(identity["Created"] as? String == PhoneScratch.now)
            for directory in [
                "Containers/Bundle/Application", "Containers/Data/Application", "Containers/Shared/AppGroup",
                "Containers/Data/PluginKitPlugin", "Library/SpringBoard",
            ] {
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: "\(phone.root)/\(directory)", isDirectory: &isDirectory))
                #expect(isDirectory.boolValue, "\(directory)")
            }
            let events = try phone.events()
            #expect(events.count == 1)
            #expect(events.first?["type"] as? String == "init")
            #expect(events.first?["time"] as? String == PhoneScratch.now)
            #expect((events.first?["details"] as? [String: String])?["udid"] == udid)
        }
    }

    @Test func jsonAndAnotherDeviceGetsAnotherUDID() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let first = try PhoneScratch.json(try phone.ok(["init", phone.root, "--json"]))
            #expect(first["root"] as? String == phone.root)
            let second = try PhoneScratch.json(try phone.ok(["init", "\(phone.dir)/other/", "--json"]))
            #expect(second["root"] as? String == "\(phone.dir)/other")
            #expect(first["udid"] as? String != nil)
            #expect(first["udid"] as? String != second["udid"] as? String)
        }
    }

    @Test func initOfAnEmptyExistingDirectoryWorks() throws {
        try PhoneScratch.with(initialised: false) { phone in
            try FileManager.default.createDirectory(atPath: phone.root, withIntermediateDirectories: false)
            try phone.ok(["init", phone.root])
        }
    }

    @Test func initRefusesAnExistingDeviceAndKeepsIt() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let before = try phone.snapshot()
            try phone.fails(["init", phone.root], mentioning: ["\(phone.root) is already a device root", "refusing"])
            #expect(try phone.snapshot() == before)
        }
    }

    @Test func initRefusesANonEmptyDirectoryAndAFile() throws {
        try PhoneScratch.with(initialised: false) { phone in
            try FileManager.default.createDirectory(atPath: phone.root, withIntermediateDirectories: false)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: "\(phone.root)/notes.txt"))
            let before = try phone.snapshot()
            try phone.fails(["init", phone.root], mentioning: ["\(phone.root) is not empty and is not a device root"])
            #expect(try phone.snapshot() == before)
            try phone.fails(["init", "\(phone.root)/notes.txt"], mentioning: ["notes.txt is not empty"])
            #expect(try phone.snapshot() == before)
        }
    }

    @Test(.enabled(if: RamfsNamespace.available, "needs unshare and mount (root)"))
    func initRefusesAFileSystemWithoutUserXattrsAndLeavesNothing() throws {
        let result = try RamfsNamespace.run(
            """
            "$2" init "$1/phone/deep"; status=$?
            echo "status=$status"; ls -A "$1"
            """)
        #expect(result.stdout == "status=1\n", "\(result.stdout)")
        #expect(result.stderr.contains("devicectl: "))
        #expect(result.stderr.contains("/phone/deep: the file system does not support user extended attributes"))
    }
}
