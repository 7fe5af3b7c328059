// TarTool: an archive's member names and devicectl manifest as GNU tar (or bsdtar) reads them, an independent reader.
import Foundation
import Testing

public enum TarTool {
    /// Member names listed by `tool` (`tar` or `bsdtar`), which must exit 0 without a word on stderr.
    public static func members(
        _ archive: String, tool: String = "tar", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String] {
        let result = try Shell.run(tool, ["-tf", archive])
        #expect(result.status == 0, "\(tool) -tf: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "\(tool) -tf warned: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The manifest member's lines, parsed, read from the archive with GNU tar.
    public static func manifest(_ archive: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [[String: Any]]
    {
        let result = try Shell.run("tar", ["-xOf", archive, ".devicectl-manifest.jsonl"])
        try #require(result.status == 0, "tar -xOf: \(result.stderr)", sourceLocation: sourceLocation)
        return try result.stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)", sourceLocation: sourceLocation)
        }
    }
}
