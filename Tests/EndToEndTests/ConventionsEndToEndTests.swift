// ConventionsEndToEndTests: what every device-model command shares: `devicectl: ` errors naming the
// file, malformed plists refused without changes, help with examples, one writer at a time.
import Foundation
import TestSupport
import Testing

@Suite struct ConventionsEndToEndTests {
    /// A plist to corrupt (found through Python, relative to ROOT) and a command that must name it.
    struct Case: CustomStringConvertible, Sendable {
        let file: String
        let command: [String]
        var description: String { "\(file) via \(command.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(file: "metadata", command: ["install", "ROOT", "--app", "com.example.other"]),
        Case(file: "metadata", command: ["status", "ROOT"]),
        Case(file: "info", command: ["launch", "ROOT", "--app", "com.example.news"]),
        Case(file: "info", command: ["widget", "add", "ROOT", "--app", "com.example.news"]),
        Case(file: "info", command: ["status", "ROOT"]),
        Case(file: "defaults", command: ["launch", "ROOT", "--app", "com.example.news"]),
        Case(file: "defaults", command: ["defaults", "write", "ROOT", "group.com.example.news", "k", "-int", "1"]),
        Case(file: "defaults", command: ["status", "ROOT"]),
        Case(file: "iconstate", command: ["widget", "add", "ROOT", "--app", "com.example.news"]),
        Case(file: "iconstate", command: ["install", "ROOT", "--app", "com.example.other"]),
        Case(file: "iconstate", command: ["status", "ROOT"]),
        Case(file: "identity", command: ["launch", "ROOT", "--app", "com.example.news"]),
        Case(file: "identity", command: ["install", "ROOT", "--app", "com.example.other"]),
        Case(file: "identity", command: ["defaults", "read", "ROOT", "com.example.news"]),
        Case(file: "notifications", command: ["launch", "ROOT", "--app", "com.example.news"]),
        Case(file: "notifications", command: ["status", "ROOT"]),
    ]

    static func path(_ file: String, _ phone: PhoneScratch) throws -> String {
        switch file {
        case "metadata":
            return
                "\(try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news"))/.com.apple.mobile_container_manager.metadata.plist"
        case "info":
            return "\(try phone.containerPath("Containers/Bundle/Application", "com.example.news"))/News.app/Info.plist"
        case "defaults":
            return
                "\(try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news"))/Library/Preferences/group.com.example.news.plist"
        case "iconstate": return "\(phone.root)/Library/SpringBoard/IconState.plist"
        case "identity": return "\(phone.root)/DeviceLocal/identity.plist"
        default: return "\(phone.root)/DeviceLocal/notifications.plist"
        }
    }

    @Test(arguments: cases)
    func aMalformedPlistIsNamedAndNothingChanges(_ testCase: Case) throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
            try phone.ok(["launch", phone.root, "--app", "com.example.news"])
            try phone.python(
                """
                notes = [dict(id='N1', app='com.example.news', title='t', body='b', scheduledAt=datetime.datetime(2026, 12, 1), fireDate=datetime.datetime(2026, 12, 9))]
                open(os.path.join(root, 'DeviceLocal/notifications.plist'), 'wb').write(plistlib.dumps(notes, fmt=plistlib.FMT_BINARY))
                """)
            let path = try Self.path(testCase.file, phone)
            try Data("bplist00 but not really".utf8).write(to: URL(fileURLWithPath: path))
            let before = try phone.snapshot()
            let command = testCase.command.map { $0 == "ROOT" ? phone.root : $0 }
            let result = try phone.fails(command, mentioning: [path, "malformed property list"])
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(try phone.snapshot() == before)
        }
    }

    @Test(arguments: [
        "init", "install", "widget add", "launch", "defaults read", "defaults write", "defaults delete", "exclude add",
        "exclude remove", "status",
    ])
    func helpShowsAnExample(_ command: String) throws {
        let result = try DevicectlBinary.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Example: devicectl \(command)"), "\(result.stdout)")
    }

    @Test func writersTakeTheDeviceLockInTurn() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            // Sixteen concurrent read-modify-write cycles on one suite: without the lock, keys would be lost.
            let script = """
                for i in $(seq 1 16); do "$1" defaults write "$2" com.example.news "key$i" -int "$i" & done
                wait
                """
            let result = try Shell.run("/bin/bash", ["-c", script, "bash", DevicectlBinary.path, phone.root])
            #expect(result.status == 0, "\(result.stderr)")
            let suite =
                "\(try phone.containerPath("Containers/Data/Application", "com.example.news"))/Library/Preferences/com.example.news.plist"
            let values = try PhoneScratch.plistDictionary(suite)
            #expect(values.count == 16)
            #expect(values["key7"] as? Int == 7)
            #expect(FileManager.default.fileExists(atPath: "\(phone.root)/DeviceLocal/lock"))
        }
    }

    @Test func usageErrorsPointAtTheCommandsHelp() throws {
        try PhoneScratch.with { phone in
            let result = try phone.fails(
                ["install", phone.root, "--ap", "x"], status: 64, mentioning: ["did you mean '--app'?"])
            #expect(result.stderr.hasSuffix("Run 'devicectl install --help' for its options.\n"))
        }
    }

    /// `list` escapes member names as GNU tar does (a newline, an escape sequence, a backslash), so one
    /// member stays one line and nothing reaches the terminal raw; GNU tar shows the same text.
    @Test func listEscapesNamesAsGNUTarDoes() throws {
        try withTemporaryDirectory { dir in
            let script = """
                set -e; cd "$1"; mkdir src
                printf a > "src/new$(printf '\\nline')"; printf b > "src/esc$(printf '\\033')[31mred"
                printf c > 'src/back\\slash'; printf d > "src/tab$(printf '\\t')x"
                ln -s "$(printf 'tar\\nget')" src/link
                """
            let made = try Shell.run("bash", ["-c", script, "bash", dir])
            try #require(made.status == 0, "\(made.stderr)")
            let backup = try DevicectlBinary.run(["backup", "\(dir)/src", "-o", "\(dir)/a.tar"])
            try #require(backup.status == 0, "\(backup.stderr)")
            let list = try DevicectlBinary.run(["list", "\(dir)/a.tar"])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(!list.stdout.contains("\u{1B}"))
            #expect(!list.stdout.contains("\t"))
            let names = list.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: "Z  ") else { return nil }
                return String(line[range.upperBound...])
            }
            let expected = ["back\\\\slash", "esc\\033[31mred", "link -> tar\\nget", "new\\nline", "tab\\tx"]
            #expect(names.filter { !$0.hasPrefix(".devicectl") } == expected, "\(list.stdout)")
            let tar = try Shell.run("tar", ["-tf", "\(dir)/a.tar"])
            #expect(tar.stdout.contains("new\\nline\n") && tar.stdout.contains("esc\\033[31mred\n"), "\(tar.stdout)")
        }
    }
}
