// DefaultsSuite: one UserDefaults suite's plist (an app's standard suite or an App Group's shared suite).
import Foundation
import Glibc
import SystemKit

/// A defaults domain stored as a binary plist, like `UserDefaults(suiteName:)` on iOS.
public struct DefaultsSuite: Sendable {
    /// The domain: a bundle id or an App Group id.
    public let domain: String
    /// The plist's absolute path.
    public let path: String

    public init(domain: String, path: String) {
        self.domain = domain
        self.path = path
    }

    /// Every key and value (empty when the suite has never been written).
    public func dictionary() throws -> [String: Any] {
        try PropertyListFile.readDictionary(path) ?? [:]
    }

    /// The value for `key`, or nil.
    public func value(_ key: String) throws -> Any? {
        try dictionary()[key]
    }

    /// Sets `key` to `value` (a plist type).
    public func set(_ key: String, to value: Any) throws {
        var all = try dictionary()
        all[key] = value
        try PropertyListFile.write(all, to: path)
    }

    /// Removes `key`; throws `DeviceError.missingKey` when it is absent.
    public func remove(_ key: String) throws {
        var all = try dictionary()
        guard all.removeValue(forKey: key) != nil else { throw DeviceError.missingKey(domain: domain, key: key) }
        try PropertyListFile.write(all, to: path)
    }

    /// Removes the whole domain.
    public func removeAll() throws {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", path: path) }
    }
}

