// TreeBuilder: builds test trees (files, modes, mtimes, xattrs, flags); TarTool reads archives back.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

/// Helpers over one scratch directory.
struct TreeBuilder {
    let root: String

    /// Writes `text` (or `bytes`) at `relative`, creating parent directories.
    @discardableResult
    func file(_ relative: String, _ text: String = "", bytes: [UInt8]? = nil, mode: mode_t? = nil) throws -> String {
        let path = "\(root)/\(relative)"
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes ?? Array(text.utf8)).write(to: URL(fileURLWithPath: path))
        if let mode { chmod(path, mode) }
        return path
    }

    @discardableResult
    func directory(_ relative: String) throws -> String {
        let path = "\(root)/\(relative)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func xattr(_ relative: String, _ name: String, _ value: [UInt8]) throws {
        try ExtendedAttributes.set(name, to: value, at: "\(root)/\(relative)")
    }

    func nodump(_ relative: String) throws {
        let result = try Shell.run("chattr", ["+d", "\(root)/\(relative)"])
        #expect(result.status == 0, "chattr: \(result.stderr)")
    }
}
