@testable import DevicectlCLI
import Testing

@Suite struct ParsedArgumentsTests {
    static let spec = CommandSpec(
        name: "backup", summary: "test",
        positionals: [PositionalSpec("ROOT", help: "")],
        options: [
            OptionSpec(["--output", "-o"], .value("ARCHIVE"), help: ""),
            OptionSpec(["--exclude"], .value("GLOB"), repeatable: true, help: ""),
            OptionSpec(["--json"], help: ""),
        ])

    @Test(arguments: [
        ["root", "-o", "a.tar"],
        ["root", "--output", "a.tar"],
        ["root", "--output=a.tar"],
        ["-o", "a.tar", "root"],
    ])
    func spellingsOfAValue(_ words: [String]) throws {
        let parsed = try ParsedArguments.parse(words, spec: Self.spec)
        #expect(parsed.positionals == ["root"])
        #expect(parsed.value("--output") == "a.tar")
    }

    @Test func repeatableAndFlagsAndDoubleDash() throws {
        let parsed = try ParsedArguments.parse(
            ["--exclude", "a", "--json", "--exclude=b", "--", "-weird"], spec: Self.spec)
        #expect(parsed.all("--exclude") == ["a", "b"])
        #expect(parsed.flag("--json"))
        #expect(parsed.positionals == ["-weird"])
    }

    @Test func unknownOptionSuggestsClosest() {
        #expect {
            try ParsedArguments.parse(["root", "--ouptut", "x"], spec: Self.spec)
        } throws: { error in
            (error as? UsageError)?.message.contains("did you mean '--output'?") == true
        }
    }

    @Test func missingAndExtraPositionals() {
        #expect(throws: UsageError.self) { try ParsedArguments.parse([], spec: Self.spec) }
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["a", "b"], spec: Self.spec) }
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["a", "-o"], spec: Self.spec) }
    }

    @Test func unknownCommandSuggests() {
        #expect {
            try Devicectl.select(["bakup"])
        } throws: { error in
            (error as? UsageError)?.message.contains("did you mean 'backup'?") == true
        }
    }
}
