// PropertyListFile: reads and atomically writes binary property lists, beneath a contained root.
import Foundation
import Glibc
import PropertyListKit
import SystemKit

/// Binary property list files, read with a size cap checked before reading and errors that name the file,
/// and written atomically (temporary file beside the target, fsync, rename). Every file is reached through a
/// `ContainedRoot`, so a plist's location can never lead outside the tree it belongs to.
public enum PropertyListFile {
    /// The largest plist a device's own structure may hold (container metadata, Info.plist, the home screen):
    /// real ones are a few KiB; parsing is what costs memory, so this caps a hostile file's cost.
    public static let structureLimit = 1 << 20
    /// The largest defaults suite or device-local store read whole (an app's preferences can be large).
    public static let dataLimit = 8 << 20

    /// Reads `relative` beneath `root` as a dictionary; nil when the file does not exist.
    public static func readDictionary(
        _ relative: String, in root: ContainedRoot, limit: Int = structureLimit
    ) throws -> [String: Any]? {
        guard let value = try read(relative, in: root, limit: limit) else { return nil }
        guard let dictionary = value as? [String: Any] else {
            throw DeviceError.malformedPlist(path: root.display(relative), reason: "the top level is not a dictionary")
        }
        return dictionary
    }

    /// Reads `relative` beneath `root`; nil when the file does not exist. A file over `limit` bytes, or one
    /// that is not a regular file, is a malformed plist naming the file (nothing of it is read).
    public static func read(_ relative: String, in root: ContainedRoot, limit: Int = structureLimit) throws -> Any? {
        try readObject(relative, in: root, limit: limit)?.foundation
    }

    /// `read` without the conversion to Foundation's types: PropertyListKit's own value.
    public static func readObject(
        _ relative: String, in root: ContainedRoot, limit: Int = structureLimit
    ) throws -> PropertyListObject? {
        let shown = root.display(relative)
        let bytes: [UInt8]
        do {
            guard let read = try root.read(relative, limit: limit) else { return nil }
            bytes = read
        } catch {
            switch error.code {
            case EFBIG: throw DeviceError.malformedPlist(path: shown, reason: "larger than \(limit >> 10) KiB")
            case EINVAL, EISDIR, ELOOP: throw DeviceError.malformedPlist(path: shown, reason: "not a regular file")
            default: throw error
            }
        }
        return try parseObject(bytes, path: shown)
    }

    /// Parses `bytes`, the content of the plist at `path` (named in the error), as `read` does: with PropertyListKit's
    /// reader and its `document` caps (Foundation's own reader expands a binary plist's shared objects while it parses,
    /// so a file of a few hundred bytes could take all memory), given back in the form Foundation's reader returns.
    public static func parse(_ bytes: [UInt8], path: String) throws -> Any {
        try parseObject(bytes, path: path).foundation
    }

    /// `parse` without the conversion to Foundation's types.
    public static func parseObject(_ bytes: [UInt8], path: String) throws -> PropertyListObject {
        guard !bytes.isEmpty else { throw DeviceError.malformedPlist(path: path, reason: "the file is empty") }
        do {
            return try PropertyListReader.read(bytes, limits: .document)
        } catch {
            throw DeviceError.malformedPlist(path: path, reason: error.reason)
        }
    }

    /// Writes `value` to `relative` beneath `root` as a binary plist, atomically; creates missing parents.
    /// The one writer is PropertyListKit's (keys sorted, so the same value gives the same bytes).
    /// A value that cannot be written (one read from a hostile file: nested too deep, a container shared too many
    /// times) is `DeviceError.malformedPlist` naming the file.
    public static func write(_ value: Any, to relative: String, in root: ContainedRoot) throws {
        let bytes: [UInt8]
        do {
            bytes = try encode(value)
        } catch {
            throw DeviceError.malformedPlist(path: root.display(relative), reason: error.reason)
        }
        try root.writeAtomically(bytes, to: relative)
    }

    /// `value` (Foundation's plist types) as a binary plist.
    /// - Throws: `PropertyListConversionError` for a value a property list cannot hold.
    public static func encode(_ value: Any) throws(PropertyListConversionError) -> [UInt8] {
        BinaryPropertyListWriter.encode(try PropertyListObject(foundation: value))
    }

    // MARK: - A file the user named

    /// Reads the plist at `path` (a file the user named, outside any device root) as a dictionary.
    public static func readDictionary(_ path: String, limit: Int = dataLimit) throws -> [String: Any]? {
        let (root, name) = try parent(of: path)
        return try readDictionary(name, in: root, limit: limit)
    }

    /// Writes `value` to `path` (a file the user named) as a binary plist, atomically.
    public static func write(_ value: Any, to path: String) throws {
        let (root, name) = try parent(of: path)
        try write(value, to: name, in: root)
    }

    private static func parent(of path: String) throws -> (ContainedRoot, String) {
        let resolved = try RootPath.resolve(RootPath.parent(of: path))
        return (try ContainedRoot(opening: resolved), RootPath.name(of: path))
    }
}
