// ManualPageTests: devicectl(1) renders without a groff warning and documents every command and option.
import Foundation
import TestSupport
import Testing

@testable import DevicectlCLI

@Suite struct ManualPageTests {
    static let page = ManualPage(specs: Devicectl.commands.map(\.spec), version: Devicectl.version).text

    /// The page rendered by groff as ASCII text (hyphenation and justification off, so words stay whole).
    static func rendered(warnings: Bool = false) throws -> RunResult {
        try withTemporaryDirectory { scratch throws -> RunResult in
            let path = scratch + "/devicectl.1"
            try Data((".nh\n.ad l\n" + page).utf8).write(to: URL(fileURLWithPath: path))
            return try Shell.run("groff", ["-man", "-Tascii", "-ww", "-rLL=200n", path])
        }
    }

    @Test func rendersWithoutWarnings() throws {
        let result = try Self.rendered()
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.contains("DEVICECTL(1)"))
    }

    @Test func documentsEveryCommandOptionAndEnvironmentVariable() throws {
        // groff marks bold and italic by overstriking (character, backspace, character): keep the last.
        let text = try Self.rendered().stdout
        let plain = String(text.unicodeScalars.reduce(into: "") { result, scalar in
            if scalar == "\u{8}" { result.removeLast() } else { result.unicodeScalars.append(scalar) }
        })
        for spec in Devicectl.commands.map(\.spec) {
            #expect(plain.contains(spec.usage), "no section for \(spec.name)")
            #expect(plain.contains(spec.summary), "no summary for \(spec.name)")
            for spelling in spec.options.flatMap(\.names) {
                #expect(plain.contains(spelling), "\(spec.name): \(spelling) missing")
            }
        }
        for variable in ManualPage.environment { #expect(plain.contains(variable.name)) }
    }

    @Test func escapesRoffControlCharacters() {
        #expect(ManualPage.escape(".hidden") == "\\&.hidden")
        #expect(ManualPage.escape("'quote") == "\\&'quote")
        #expect(ManualPage.escape("a\\b --x") == "a\\eb \\-\\-x")
    }
}
