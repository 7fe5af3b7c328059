// DefaultsEndToEndTests: `devicectl defaults` behaves like macOS `defaults`; plistlib reads what it wrote.
import Foundation
import TestSupport
import Testing

@Suite struct DefaultsEndToEndTests {
    func suitePath(_ phone: PhoneScratch) throws -> String {
        "\(try phone.containerPath("Containers/Data/Application", "com.example.news"))/Library/Preferences/com.example.news.plist"
    }

    @Test func writeEachTypeAndReadItBack() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let domain = [phone.root, "com.example.news"]
            for (key, option, value, printed) in [
                ("enabled", "-bool", "YES", "1"), ("disabled", "-bool", "false", "0"), ("count", "-int", "-12", "-12"),
                ("scale", "-float", "1.25", "1.25"), ("title", "-string", "Hello, world", "Hello, world"),
            ] {
                let write = try phone.ok(["defaults", "write"] + domain + [key, option, value])
                #expect(write.stdout.isEmpty)
                #expect(try phone.ok(["defaults", "read"] + domain + [key]).stdout == printed + "\n", "\(key)")
            }
            let script = """
                import plistlib, sys
                data = open(sys.argv[1], 'rb').read()
                assert data[:8] == b'bplist00'
                p = plistlib.loads(data)
                print(*[f'{k}={type(v).__name__}:{v}' for k, v in sorted(p.items())])
                """
            let python = try Shell.run("python3", ["-c", script, try suitePath(phone)])
            #expect(
                python.stdout
                    == "count=int:-12 disabled=bool:False enabled=bool:True scale=float:1.25 title=str:Hello, world\n")

            let whole = try phone.ok(["defaults", "read"] + domain)
            #expect(
                whole.stdout == """
                    {
                        count = "-12";
                        disabled = 0;
                        enabled = 1;
                        scale = "1.25";
                        title = "Hello, world";
                    }

                    """)
            // A write changes the type, as on macOS.
            try phone.ok(["defaults", "write"] + domain + ["count", "-string", "many"])
            #expect(try PhoneScratch.plistDictionary(try suitePath(phone))["count"] as? String == "many")
        }
    }

    @Test func readingTheGroupSuiteAndAnEmptyDomain() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            #expect(try phone.ok(["defaults", "read", phone.root, "com.example.news"]).stdout == "{\n}\n")
            try phone.ok(["launch", phone.root, "--app", "com.example.news"])
            #expect(
                try phone.ok(["defaults", "read", phone.root, "group.com.example.news"]).stdout
                    == "{\n    notificationEnabled = 1;\n}\n")
        }
    }

    @Test func missingKeysAndDomainsFailLikeMacOS() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["defaults", "write", phone.root, "com.example.news", "keep", "-int", "1"])
            let before = try phone.snapshot()
            let missing = try phone.fails(["defaults", "read", phone.root, "com.example.news", "nope"])
            #expect(missing.stderr == "devicectl: The domain/default pair of (com.example.news, nope) does not exist\n")
            try phone.fails(
                ["defaults", "delete", phone.root, "com.example.news", "nope"],
                mentioning: ["The domain/default pair of (com.example.news, nope) does not exist"])
            try phone.fails(["defaults", "read", phone.root, "com.example.ghost"], mentioning: ["'com.example.ghost'"])
            try phone.fails(
                ["defaults", "write", phone.root, "com.example.ghost", "k", "-int", "1"],
                mentioning: ["'com.example.ghost'"])
            try phone.fails(
                ["defaults", "write", phone.root, "com.example.news", "k", "-bool", "maybe"], status: 64,
                mentioning: ["invalid value 'maybe' for -bool"])
            try phone.fails(
                ["defaults", "write", phone.root, "com.example.news", "k", "-int", "2.5"], status: 64,
                mentioning: ["invalid value '2.5' for -int"])
            try phone.fails(
                ["defaults", "write", phone.root, "com.example.news", "k"], status: 64,
                mentioning: ["give exactly one of -bool, -int, -float, -string"])
            try phone.fails(
                ["defaults", "write", phone.root, "com.example.news", "k", "-int", "1", "-bool", "1"], status: 64)
            #expect(try phone.snapshot() == before)
        }
    }

    @Test func deleteAKeyThenTheWholeDomain() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["defaults", "write", phone.root, "com.example.news", "a", "-int", "1"])
            try phone.ok(["defaults", "write", phone.root, "com.example.news", "b", "-int", "2"])
            try phone.ok(["defaults", "delete", phone.root, "com.example.news", "a"])
            #expect(try PhoneScratch.plistDictionary(try suitePath(phone)).keys.sorted() == ["b"])
            try phone.ok(["defaults", "delete", phone.root, "com.example.news"])
            #expect(!FileManager.default.fileExists(atPath: try suitePath(phone)))
            try phone.fails(
                ["defaults", "delete", phone.root, "com.example.news"],
                mentioning: ["Domain (com.example.news) not found"])
        }
    }

    @Test func aMalformedSuiteIsNamedAndNeverOverwritten() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let path = try suitePath(phone)
            try Data("{ not binary".utf8).write(to: URL(fileURLWithPath: path))
            let before = try phone.snapshot()
            try phone.fails(
                ["defaults", "read", phone.root, "com.example.news"], mentioning: [path, "malformed property list"])
            try phone.fails(["defaults", "read", phone.root, "com.example.news", "k"], mentioning: [path])
            try phone.fails(
                ["defaults", "write", phone.root, "com.example.news", "k", "-int", "1"], mentioning: [path])
            try phone.fails(["defaults", "delete", phone.root, "com.example.news", "k"], mentioning: [path])
            #expect(try phone.snapshot() == before)
            // Deleting the whole domain is how to recover from it.
            try phone.ok(["defaults", "delete", phone.root, "com.example.news"])
            try phone.ok(["defaults", "write", phone.root, "com.example.news", "k", "-int", "1"])
        }
    }
}
