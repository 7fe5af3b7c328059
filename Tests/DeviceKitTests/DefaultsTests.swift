// DefaultsTests: suites resolve by domain, keep their value types, and read back with an independent reader.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct DefaultsTests {
    @Test func valuesKeepTheirTypes() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.news"]))
            let suite = try device.defaults("com.example.news")
            #expect(suite.path.hasSuffix("/Library/Preferences/com.example.news.plist"))
            #expect(try suite.dictionary().isEmpty)
            try suite.set("flag", to: true)
            try suite.set("count", to: 42)
            try suite.set("ratio", to: 0.25)
            try suite.set("name", to: "Ünïcode news")
            try suite.set("when", to: TestPhone.start)
            let values = try suite.dictionary()
            #expect(values.count == 5)
            #expect(type(of: values["flag"]!) == Bool.self && values["flag"] as? Bool == true)
            #expect(values["count"] as? Int == 42)
            #expect(values["ratio"] as? Double == 0.25)
            #expect(values["name"] as? String == "Ünïcode news")
            #expect(values["when"] as? Date == TestPhone.start)

            // Python's plistlib reads the same file as a binary plist with the same types.
            let script = """
                import plistlib, sys
                data = open(sys.argv[1], 'rb').read()
                assert data[:8] == b'bplist00', data[:8]
                p = plistlib.loads(data, fmt=plistlib.FMT_BINARY)
                print(type(p['flag']).__name__, p['flag'], type(p['count']).__name__, p['count'],
                      type(p['ratio']).__name__, p['ratio'], p['name'], p['when'].isoformat())
                """
            let result = try Shell.run("python3", ["-c", script, suite.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "bool True int 42 float 0.25 Ünïcode news 2026-12-01T09:00:00\n")
        }
    }

    @Test func groupDomainIsTheSharedSuite() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.news"]))
            let group = try #require(try device.container(.group, identifier: "group.com.example.news"))
            #expect(
                try device.defaults("group.com.example.news").path
                    == "\(group.path)/Library/Preferences/group.com.example.news.plist")
        }
    }

    @Test func removeAndUnknownDomain() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: "com.example.news", widget: nil))
            let suite = try device.defaults("com.example.news")
            try suite.set("a", to: 1)
            try suite.set("b", to: 2)
            try suite.remove("a")
            #expect(try suite.dictionary().keys.sorted() == ["b"])
            #expect(throws: DeviceError.missingKey(domain: "com.example.news", key: "a")) { try suite.remove("a") }
            #expect(
                "\(DeviceError.missingKey(domain: "d", key: "k"))" == "The domain/default pair of (d, k) does not exist"
            )
            try suite.removeAll()
            #expect(!FileManager.default.fileExists(atPath: suite.path))
            try suite.removeAll()
            #expect(throws: DeviceError.unknownDomain("com.example.other")) { try device.defaults("com.example.other") }
        }
    }
}
