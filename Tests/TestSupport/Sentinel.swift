// Sentinel: a file and a directory beside the tree under test that no command may change.
import Foundation

public enum Sentinel {
    /// Makes `path/dir` and `path/file` ("sentinel\n"); a snapshot of `path` taken before a command must equal
    /// one taken after it.
    public static func make(at path: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/dir", withIntermediateDirectories: true)
        try Data("sentinel\n".utf8).write(to: URL(fileURLWithPath: path + "/file"))
    }
}
