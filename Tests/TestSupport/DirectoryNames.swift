// DirectoryNames: the names in a directory, for tests that prove what was (or was not) left behind.
import Foundation

/// The names in `directory` (without `.` and `..`), sorted.
public func directoryNames(in directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
}
