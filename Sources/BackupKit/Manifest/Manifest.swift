// Manifest: the records of `.devicectl-manifest.jsonl`, the archive's final member (see docs/FORMATS.md).
import DeviceKit
import Foundation

/// The backup manifest's JSON Lines records.
public enum Manifest {
    /// The member name of the manifest; always the archive's last member.
    public static let memberName = ".devicectl-manifest.jsonl"
    public static let format = "devicectl-backup"
    public static let formatVersion = 1

    /// First line: what was backed up, from where, and what a restore must reinstall.
    public struct Header: Codable, Sendable, Equatable {
        public var kind = "header"
        public var format = Manifest.format
        public var formatVersion = Manifest.formatVersion
        public var tool: String
        public var created: String
        public var source: Source
        public var apps: [App]
        public var groups: [String]
        public var widgets: [Widget]
        /// The engine whose exclusion rules the backup applied. Absent in archives made before engines
        /// existed, which read as `icloud` (`appliedEngine`); every backup writes it.
        public var engine: AppleBackupEngine?

        public init(
            tool: String, created: String, source: Source, apps: [App], groups: [String], widgets: [Widget],
            engine: AppleBackupEngine? = nil
        ) {
            self.engine = engine
            self.tool = tool
            self.created = created
            self.source = source
            self.apps = apps
            self.groups = groups
            self.widgets = widgets
        }

        /// The engine the backup applied: the recorded one, `icloud` for an archive that records none.
        public var appliedEngine: AppleBackupEngine { engine ?? .default }
    }

    /// The device the backup came from (nil udid: not a device root).
    public struct Source: Codable, Sendable, Equatable {
        public var udid: String?
        public init(udid: String?) { self.udid = udid }
    }

    /// An installed app, enough to reinstall it.
    public struct App: Codable, Sendable, Equatable {
        public var bundleId: String
        public var name: String
        public var groups: [String]
        /// The app's nudge widget, if it has one (the manifest's own record: `WidgetSettings`).
        public var widget: WidgetSettings?
        public init(bundleId: String, name: String, groups: [String], widget: WidgetSettings?) {
            self.bundleId = bundleId
            self.name = name
            self.groups = groups
            self.widget = widget
        }
    }

    /// A widget placed on the home screen.
    public struct Widget: Codable, Sendable, Equatable {
        public var app: String
        public init(app: String) { self.app = app }
    }

    /// One regular file with data, in archive order.
    public struct File: Codable, Sendable, Equatable {
        public var kind = "file"
        public var path: String
        public var size: UInt64
        public var sha256: String
        public init(path: String, size: UInt64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    /// Files and bytes of one kind.
    public struct Count: Codable, Sendable, Equatable {
        public var files: UInt64
        public var bytes: UInt64
        public init(files: UInt64 = 0, bytes: UInt64 = 0) {
            self.files = files
            self.bytes = bytes
        }
    }

    /// What was skipped, in all and by reason identifier (see docs/FORMATS.md).
    public struct Excluded: Codable, Sendable, Equatable {
        public var files: UInt64
        public var bytes: UInt64
        public var byReason: [String: Count]
        public init(files: UInt64 = 0, bytes: UInt64 = 0, byReason: [String: Count] = [:]) {
            self.files = files
            self.bytes = bytes
            self.byReason = byReason
        }
    }

    /// Last line: totals.
    public struct Totals: Codable, Sendable, Equatable {
        public var kind = "totals"
        public var files: UInt64
        public var bytes: UInt64
        public var directories: UInt64
        public var symlinks: UInt64
        public var hardlinks: UInt64
        public var excluded: Excluded
        public init(files: UInt64, bytes: UInt64, directories: UInt64, symlinks: UInt64, hardlinks: UInt64, excluded: Excluded) {
            self.files = files
            self.bytes = bytes
            self.directories = directories
            self.symlinks = symlinks
            self.hardlinks = hardlinks
            self.excluded = excluded
        }

        public init(counts: EntryCounts, excluded: Excluded) {
            self.init(
                files: counts.files, bytes: counts.bytes, directories: counts.directories, symlinks: counts.symlinks,
                hardlinks: counts.hardlinks, excluded: excluded)
        }

        /// The counts this line records.
        public var counts: EntryCounts {
            EntryCounts(files: files, bytes: bytes, directories: directories, symlinks: symlinks, hardlinks: hardlinks)
        }
    }
}
