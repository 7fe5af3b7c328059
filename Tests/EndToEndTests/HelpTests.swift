import Foundation
import TestSupport
import Testing

@Suite struct HelpTests {
    @Test func versionAndHelp() throws {
        let version = try DevicectlBinary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("devicectl "))
        let help = try DevicectlBinary.run(["help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("widget-refresh"))
    }

    /// Every command `devicectl help` lists has `--help` with its usage, an example line, and descriptions that
    /// start in one column.
    @Test func everyCommandHasHelpWithAnExample() throws {
        let overview = try DevicectlBinary.run(["help"]).stdout
        let names = overview.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Commands:" }
            .dropFirst().prefix { !$0.isEmpty }
            .map { line -> String in
                // "  widget add        Place..." -> "widget add": the name ends at the first run of two spaces.
                let text = line.dropFirst(2)
                return String(text[..<(text.range(of: "  ")?.lowerBound ?? text.endIndex)])
            }
        #expect(names.count >= 20 && names.contains("backup") && names.contains("widget add"))
        for command in names {
            let result = try DevicectlBinary.run(command.split(separator: " ").map(String.init) + ["--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("Usage: devicectl \(command)"), "\(command)")
            #expect(result.stdout.contains("Example: devicectl \(command)") || result.stdout.contains("Example: source"),
                    "\(command) has no example")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let rows = ["Arguments:", "Options:"].flatMap { heading in
                lines.drop { $0 != heading }.dropFirst().prefix { !$0.isEmpty }
            }
            let columns = Set(rows.compactMap { row -> Int? in
                guard let gap = row.dropFirst(2).range(of: "  ") else { return nil }
                let rest = row[gap.upperBound...]
                return row.distance(from: row.startIndex, to: rest.firstIndex { $0 != " " } ?? rest.endIndex)
            })
            #expect(columns.count == 1, "\(command): descriptions start in columns \(columns.sorted())")
        }
    }

    @Test func unknownCommandIsUsageError() throws {
        let result = try DevicectlBinary.run(["bakup"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean 'backup'?"))
    }

    /// A group name prints its subcommands: on stdout with status 0 when help is asked for, on stderr with
    /// the usage status when the subcommand is missing.
    @Test(arguments: [
        (["defaults", "--help"], 0, "defaults write"), (["exclude", "-h"], 0, "exclude check"),
        (["help", "defaults"], 0, "defaults delete"), (["help", "widget"], 0, "widget add"),
        (["widget"], 64, "widget add"), (["defaults"], 64, "defaults read"), (["exclude"], 64, "exclude remove"),
    ] as [([String], Int32, String)])
    func commandGroupsHaveHelp(_ words: [String], _ status: Int32, _ listed: String) throws {
        let result = try DevicectlBinary.run(words)
        #expect(result.status == status, "\(result.stderr)")
        let text = status == 0 ? result.stdout : result.stderr
        #expect(text.contains("Subcommands:"), "\(text)")
        #expect(text.contains(listed))
        #expect(!result.stderr.contains("unknown command"))
        if status != 0 { #expect(result.stdout.isEmpty) }
    }

    @Test func bareDevicectlIsAUsageError() throws {
        let result = try DevicectlBinary.run([])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Usage: devicectl COMMAND"))
    }

    @Test(arguments: [
        (["--verison"], "did you mean '--version'?"), (["backup", "/r", "-x"], "unknown option '-x' for 'backup'\n"),
        (["backup", "/r", "--jsno"], "did you mean '--json'?"), (["backup", "/r", "-json"], "did you mean '--json'?"),
    ])
    func optionSuggestionsAreOfTheRightKind(_ words: [String], _ message: String) throws {
        let result = try DevicectlBinary.run(words)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        if words == ["backup", "/r", "-x"] { #expect(!result.stderr.contains("did you mean")) }
    }
}
