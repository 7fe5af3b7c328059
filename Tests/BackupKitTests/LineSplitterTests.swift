// LineSplitterTests: manifest lines come out whole and in order however the blocks cut them.
import Testing

@testable import BackupKit

@Suite struct LineSplitterTests {
    /// Splits `text` fed in blocks of `blockSize` bytes; the lines, then the unterminated rest.
    static func split(_ text: String, blockSize: Int, maxLine: Int = 1000) throws -> [String] {
        var splitter = LineSplitter(maxLine: maxLine)
        var lines: [String] = []
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + blockSize)
            try bytes[offset..<end].withUnsafeBytes { block in
                try splitter.feed(block) { lines.append(String(decoding: $0, as: UTF8.self)) }
            }
            offset = end
        }
        try splitter.finish { lines.append(String(decoding: $0, as: UTF8.self)) }
        #expect(splitter.lines == lines.count)
        return lines
    }

    @Test(arguments: [1, 2, 3, 7, 64, 4096])
    func linesSurviveEveryBlockBoundary(_ blockSize: Int) throws {
        let text = "{\"kind\":\"header\"}\n\n  \nsecond line é\nthird\nunterminated"
        #expect(try Self.split(text, blockSize: blockSize) == [
            "{\"kind\":\"header\"}", "", "  ", "second line é", "third", "unterminated",
        ])
    }

    @Test func aTrailingNewlineLeavesNoEmptyLastLine() throws {
        #expect(try Self.split("a\nb\n", blockSize: 3) == ["a", "b"])
        #expect(try Self.split("", blockSize: 3) == [])
    }

    @Test func anUnfinishedLineLongerThanTheCapFails() throws {
        #expect(throws: RestoreError.self) { try Self.split(String(repeating: "x", count: 50), blockSize: 8, maxLine: 20) }
        #expect(try Self.split(String(repeating: "x", count: 20) + "\n", blockSize: 8, maxLine: 20).count == 1)
    }
}
