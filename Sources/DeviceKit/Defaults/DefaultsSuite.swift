// DefaultsSuite: one UserDefaults suite's plist (an app's standard suite or an App Group's shared suite).
import Foundation
import Glibc
import SystemKit

/// A defaults domain stored as a binary plist, like `UserDefaults(suiteName:)` on iOS.
public struct DefaultsSuite: Sendable {
    /// The domain: a bundle id or an App Group id.
    public let domain: String
    /// The plist's path relative to the device root.
    public let relativePath: String
    /// The device root the plist is reached through.
    public let directory: ContainedRoot

    public init(domain: String, relativePath: String, in directory: ContainedRoot) {
        self.domain = domain
        self.relativePath = relativePath
        self.directory = directory
    }

    /// The plist's absolute path, for messages.
    public var path: String { directory.display(relativePath) }

    /// Whether the suite's plist exists.
    public func exists() throws -> Bool {
        try directory.status(relativePath) != nil
    }

    /// Every key and value (empty when the suite has never been written).
    public func dictionary() throws -> [String: Any] {
        try PropertyListFile.readDictionary(relativePath, in: directory, limit: PropertyListFile.dataLimit) ?? [:]
    }

    /// The value for `key`, or nil.
    public func value(_ key: String) throws -> Any? {
        try dictionary()[key]
    }

    /// Sets `key` to `value` (a plist type).
    public func set(_ key: String, to value: Any) throws {
        var all = try dictionary()
        all[key] = value
        try PropertyListFile.write(all, to: relativePath, in: directory)
    }

    /// Removes `key`; throws `DeviceError.missingKey` when it is absent.
    public func remove(_ key: String) throws {
        var all = try dictionary()
        guard all.removeValue(forKey: key) != nil else { throw DeviceError.missingKey(domain: domain, key: key) }
        try PropertyListFile.write(all, to: relativePath, in: directory)
    }

    /// Removes the whole domain.
    public func removeAll() throws {
        try directory.remove(relativePath)
    }
}
