// PropertyListFile: reads and atomically writes binary property lists.
import Foundation
import Glibc
import SystemKit

/// Binary property list files, read with errors that name the file and written atomically
/// (temporary file beside the target, fsync, rename).
public enum PropertyListFile {
    /// Reads the plist at `path` as a dictionary; nil when the file does not exist.
    public static func readDictionary(_ path: String) throws -> [String: Any]? {
        guard let value = try read(path) else { return nil }
        guard let dictionary = value as? [String: Any] else {
            throw DeviceError.malformedPlist(path: path, reason: "the top level is not a dictionary")
        }
        return dictionary
    }

    /// Reads the plist at `path`; nil when the file does not exist.
    public static func read(_ path: String) throws -> Any? {
        let bytes: [UInt8]
        do {
            let file = try FileDescriptor.open(path, flags: O_RDONLY | O_NOFOLLOW)
            bytes = try file.readAll()
            try file.close()
        } catch {
            guard error.code == ENOENT else { throw error }
            return nil
        }
        return try parse(bytes, path: path)
    }

    /// Parses `bytes`, the content of the plist at `path` (named in the error), as `read` does.
    public static func parse(_ bytes: [UInt8], path: String) throws -> Any {
        do {
            return try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            let reason = bytes.isEmpty ? "the file is empty" : "not a property list"
            throw DeviceError.malformedPlist(path: path, reason: reason)
        }
    }

    /// Writes `value` to `path` as a binary plist, atomically. Creates missing parent directories.
    public static func write(_ value: Any, to path: String) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        try AtomicFile.write(Array(data), to: path)
    }
}
