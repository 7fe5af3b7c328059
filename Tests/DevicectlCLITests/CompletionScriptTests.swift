// CompletionScriptTests: the bash, zsh and fish scripts complete every command, option and fixed value, run in
// the real shells (each shell's own completion machinery for bash and fish; zsh's dispatch with recording stubs).
import Foundation
import TestSupport
import Testing

@testable import DevicectlCLI

@Suite struct CompletionScriptTests {
    static let specs = Devicectl.commands.map(\.spec)
    static let script = CompletionScript(specs: specs)

    /// Writes `text` to a scratch file and returns its path.
    static func file(_ text: String, in directory: String, named name: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// One completion question: the words typed (the last is the one being completed) and a word expected back.
    struct Case {
        let words: [String]
        let expected: String
    }

    /// For every command: its name from its first letters, each long option from its first two letters (a short
    /// one from '-'), each fixed
    /// value of an option after that option; for a group, each subcommand after the group's name.
    static var cases: [Case] {
        var cases: [Case] = []
        for word in script.topWords { cases.append(Case(words: [String(word.word.prefix(3))], expected: word.word)) }
        for spec in specs {
            let name = spec.name.split(separator: " ").map(String.init)
            if name.count == 2 { cases.append(Case(words: [name[0], String(name[1].prefix(2))], expected: name[1])) }
            for option in spec.options {
                for spelling in option.names {
                    let typed = spelling.hasPrefix("--") ? String(spelling.prefix(4)) : "-"
                    cases.append(Case(words: name + ["ROOT", typed], expected: spelling))
                }
                if case .choice(let values) = CompletionScript.value(of: option) {
                    for value in values {
                        cases.append(Case(words: name + [option.key, String(value.prefix(1))], expected: value))
                    }
                }
            }
        }
        return cases
    }

    @Test func bashCompletesEveryCommandOptionAndValue() throws {
        try withTemporaryDirectory { scratch throws in
            let script = try Self.file(Self.script.text(for: .bash), in: scratch, named: "devicectl.bash")
            var driver = "source '\(script)'\n"
            for (index, test) in Self.cases.enumerated() {
                let words = (["devicectl"] + test.words).map { "'\($0)'" }.joined(separator: " ")
                driver += "COMP_WORDS=(\(words)); COMP_CWORD=\(test.words.count); COMPREPLY=(); _devicectl\n"
                driver += "printf '%s\\n' \"\(index):${COMPREPLY[*]}\"\n"
            }
            let result = try Shell.run("bash", ["--norc", "--noprofile", "-c", driver])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            let replies = Self.replies(result.stdout)
            for (index, test) in Self.cases.enumerated() {
                #expect(replies[index]?.contains(test.expected) == true, "bash: \(test.words) -> \(replies[index] ?? [])")
            }
        }
    }

    @Test func fishCompletesEveryCommandOptionAndValue() throws {
        try withTemporaryDirectory { scratch throws in
            let script = try Self.file(Self.script.text(for: .fish), in: scratch, named: "devicectl.fish")
            var driver = "source '\(script)'\n"
            for (index, test) in Self.cases.enumerated() {
                let line = (["devicectl"] + test.words).joined(separator: " ")
                driver += "for c in (complete -C '\(line)'); echo '\(index):'(string split -f1 \\t -- $c); end\n"
            }
            let result = try Shell.run("fish", ["--no-config", "-c", driver])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            var replies: [Int: [String]] = [:]
            for line in result.stdout.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
                if parts.count == 2, let index = Int(parts[0]) { replies[index, default: []].append(parts[1]) }
            }
            for (index, test) in Self.cases.enumerated() {
                #expect(replies[index]?.contains(test.expected) == true, "fish: \(test.words) -> \(replies[index] ?? [])")
            }
        }
    }

    /// zsh: the script parses, and for every command it hands `_arguments` one spec per option spelling with the
    /// command's own words (its name first), as recording stubs of `_arguments` and `_describe` show.
    @Test func zshHandsEveryCommandItsOptionsAndWords() throws {
        try withTemporaryDirectory { scratch throws in
            let script = try Self.file(Self.script.text(for: .zsh), in: scratch, named: "_devicectl")
            #expect(try Shell.run("zsh", ["-n", script]).status == 0)
            var driver = """
                _arguments() { print -r -- "args:$words[1]:$CURRENT:${(j: :)@}" }
                _describe() { local -a items; items=("${(@P)${@[-1]}}"); print -r -- "describe:${(j: :)${(@)items%%:*}}" }
                _files() { }
                autoload -Uz +X \(script) 2>/dev/null || source \(script)

                """
            for spec in Self.specs {
                let words = ["devicectl"] + spec.name.split(separator: " ").map(String.init) + ["ROOT", ""]
                let quoted = words.map { "'\($0)'" }.joined(separator: " ")
                driver += "words=(\(quoted)); CURRENT=\(words.count); _devicectl\n"
            }
            driver += "words=(devicectl ''); CURRENT=2; _devicectl\nwords=(devicectl widget ''); CURRENT=3; _devicectl\n"
            let result = try Shell.run("zsh", ["-f", "-c", "function _main {\n\(driver)\n}\n_main"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let argumentLines = lines.filter { $0.hasPrefix("args:") }
            #expect(argumentLines.count == Self.specs.count, "\(result.stdout)\n\(result.stderr)")
            for (spec, line) in zip(Self.specs, argumentLines) {
                let last = String(spec.name.split(separator: " ").last!)
                #expect(line.hasPrefix("args:\(last):3:"), "\(spec.name): \(line)")
                for spelling in spec.options.flatMap(\.names) {
                    #expect(line.contains(spelling + "["), "\(spec.name) lacks \(spelling): \(line)")
                }
            }
            let describes = lines.filter { $0.hasPrefix("describe:") }
            #expect(describes.first?.contains("backup") == true && describes.first?.contains("widget") == true)
            #expect(describes.last?.contains("add") == true, "\(describes)")
        }
    }

    /// The command after the index, its reply words.
    static func replies(_ output: String) -> [Int: [String]] {
        var replies: [Int: [String]] = [:]
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            if parts.count == 2, let index = Int(parts[0]) { replies[index] = parts[1].split(separator: " ").map(String.init) }
        }
        return replies
    }

    /// A path value or positional completes file names in every shell.
    @Test func pathsCompleteFileNames() throws {
        try withTemporaryDirectory { scratch throws in
            try Data().write(to: URL(fileURLWithPath: scratch + "/phone-archive.tar"))
            let bash = try Self.file(Self.script.text(for: .bash), in: scratch, named: "c.bash")
            let fish = try Self.file(Self.script.text(for: .fish), in: scratch, named: "c.fish")
            let fromBash = try Shell.run("bash", ["--norc", "-c", """
                cd '\(scratch)'; source '\(bash)'
                COMP_WORDS=(devicectl backup ROOT -o phone-a); COMP_CWORD=4; _devicectl; echo "${COMPREPLY[*]}"
                COMP_WORDS=(devicectl verify phone-a); COMP_CWORD=2; _devicectl; echo "${COMPREPLY[*]}"
                """])
            #expect(fromBash.stdout == "phone-archive.tar\nphone-archive.tar\n", "\(fromBash.stdout)\(fromBash.stderr)")
            let fromFish = try Shell.run("fish", ["--no-config", "-c", """
                cd '\(scratch)'; source '\(fish)'
                complete -C 'devicectl backup ROOT -o phone-a'; complete -C 'devicectl verify phone-a'
                """])
            #expect(fromFish.stdout == "phone-archive.tar\nphone-archive.tar\n", "\(fromFish.stdout)\(fromFish.stderr)")
        }
    }
}
