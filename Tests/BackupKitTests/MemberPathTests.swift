// MemberPathTests: a member name is checked and normalised by the documented rules, for any mix of components, and an
// already normalised name is kept as it is, not copied.
import TarKit
import TestSupport
import Testing

@Suite struct MemberPathTests {
    /// The rules, written plainly: the reason a name is refused, or its components once empty and `.` ones are dropped.
    static func expected(_ raw: [UInt8]) -> Result<[[UInt8]], MemberPathProblem> {
        if raw.isEmpty { return .failure(.empty) }
        if raw.contains(0) { return .failure(.nul) }
        if raw[0] == UInt8(ascii: "/") { return .failure(.absolute) }
        if raw.count > MemberPath.maxLength { return .failure(.tooLong) }
        var kept: [[UInt8]] = []
        for component in raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.isEmpty || component.elementsEqual([UInt8(ascii: ".")]) { continue }
            if component.elementsEqual(Array("..".utf8)) { return .failure(.dotDot) }
            if component.count > MemberPath.maxComponent { return .failure(.componentTooLong) }
            kept.append(Array(component))
        }
        if kept.count > MemberPath.maxDepth { return .failure(.tooDeep) }
        return .success(kept)
    }

    @Test func namesFollowTheRulesWhateverTheirComponents() {
        var generator = SeededGenerator(seed: 20_261_206)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("Library".utf8), Array(".".utf8), Array("..".utf8), Array("...".utf8),
            Array(".a".utf8), Array("/".utf8), Array("//".utf8), [0], Array(repeating: UInt8(ascii: "x"), count: 255),
            Array(repeating: UInt8(ascii: "y"), count: 256),
        ]
        var cases: [[UInt8]] = [[], Array("a".utf8), Array("a/".utf8), Array("./a".utf8), Array("a/./b".utf8)]
        cases.append(Array(repeating: Array("a/".utf8), count: 256).joined() + Array("b".utf8))  // 257 levels
        cases.append(Array(repeating: Array("a/".utf8), count: 255).joined() + Array("b".utf8))  // 256 levels
        cases.append(Array(repeating: UInt8(ascii: "z"), count: 4096))
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...8, using: &generator)
            var raw: [UInt8] = []
            for index in 0..<count {
                if index > 0 && Bool.random(using: &generator) { raw.append(UInt8(ascii: "/")) }
                raw += pieces.randomElement(using: &generator)!
            }
            cases.append(raw)
        }
        var normalisedKept = 0
        for raw in cases {
            let name = String(decoding: raw.prefix(80), as: UTF8.self)
            switch Self.expected(raw) {
            case .failure(let problem):
                #expect(throws: problem, "\(name)") { try MemberPath(raw) }
            case .success(let components):
                guard let path = try? MemberPath(raw) else {
                    Issue.record("refused: \(name)")
                    continue
                }
                let joined = Array(components.joined(separator: [UInt8(ascii: "/")]))
                #expect(path.bytes == joined, "\(name)")
                #expect(path.depth == components.count, "\(name)")
                #expect(Array(path.name) == (components.last ?? []), "\(name)")
                #expect(Array(path.parent) == Array(components.dropLast().joined(separator: [UInt8(ascii: "/")])))
                if joined == raw {
                    // Kept as it is: the same storage, no copy made.
                    let same = raw.withUnsafeBufferPointer { kept in
                        path.bytes.withUnsafeBufferPointer { $0.baseAddress == kept.baseAddress }
                    }
                    #expect(same, "\(name)")
                    normalisedKept += 1
                }
            }
        }
        #expect(normalisedKept > 1_000)
    }
}
