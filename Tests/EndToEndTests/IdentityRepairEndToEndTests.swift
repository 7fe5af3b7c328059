// IdentityRepairEndToEndTests: a device root whose DeviceLocal/identity.plist is missing is named as such
// (never silently a plain directory) and `init --repair` gives it a new identity, keeping its files.
import Foundation
import TestSupport
import Testing

@Suite struct IdentityRepairEndToEndTests {
    @Test func aLostIdentityIsNamedAndRepaired() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let oldStatus = try PhoneScratch.json(phone.ok(["status", phone.root, "--json"]))
            let oldUdid = try #require(oldStatus["udid"] as? String)
            try FileManager.default.removeItem(atPath: phone.root + "/DeviceLocal/identity.plist")
            let hint = "is laid out like a device but its identity (DeviceLocal/identity.plist) is missing"
            let repair = "devicectl init --repair \(phone.root)"
            for arguments in [["status", phone.root], ["launch", phone.root, "--app", "com.example.news"]] {
                let result = try phone.run(arguments)
                #expect(result.status == 1)
                #expect(result.stderr.contains(hint) && result.stderr.contains(repair), "\(result.stderr)")
            }
            // backup says so instead of silently dropping the iOS rules.
            let backup = try phone.run(["backup", phone.root, "-o", phone.dir + "/b.tar"])
            #expect(backup.stderr.contains("devicectl: warning: \(phone.root) \(hint)"), "\(backup.stderr)")
            #expect(backup.stderr.contains("this backup applies no iOS rules"))
            let caches = try phone.containerPath("Containers/Data/Application", "com.example.news") + "/Library/Caches"
            let check = try phone.run(["exclude", "check", caches])
            #expect(check.stdout == "\(caches): included\n")
            #expect(check.stderr.contains("devicectl: warning: \(phone.root) \(hint)"), "\(check.stderr)")

            let before = try phone.snapshot()
            let repaired = try phone.ok(["init", "--repair", phone.root, "--json"])
            let object = try PhoneScratch.json(repaired)
            let udid = try #require(object["udid"] as? String)
            #expect(udid != oldUdid)
            #expect(object["repaired"] as? Bool == true)
            let status = try PhoneScratch.json(phone.ok(["status", phone.root, "--json"]))
            #expect(status["udid"] as? String == udid)
            #expect((status["apps"] as? [[String: Any]])?.map { $0["bundleId"] as? String } == ["com.example.news"])
            #expect(before != (try phone.snapshot()))
            let repairEvent = try #require(phone.events().last)
            #expect((repairEvent["details"] as? [String: String])?["repair"] == "identity was missing")
            // A second repair, or one of a directory that is not laid out like a device, is refused.
            let again = try phone.run(["init", "--repair", phone.root])
            #expect(again.stderr.contains("nothing to repair: it has an identity"))
            let plain = phone.dir + "/plain"
            try FileManager.default.createDirectory(atPath: plain + "/Containers", withIntermediateDirectories: true)
            let refused = try phone.run(["init", "--repair", plain])
            #expect(refused.status == 1)
            #expect(
                refused.stderr.contains("nothing to repair: it is not laid out like a device"), "\(refused.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: plain) == ["Containers"])
        }
    }
}
