// DeviceLayout: the relative paths of a device root (see docs/FORMATS.md).

/// Where things live inside a device root, relative to ROOT.
public enum DeviceLayout {
    /// Device-local state: identity, notifications, event log, lock. Never backed up, never restored over.
    public static let deviceLocal = "DeviceLocal"
    public static let identity = "DeviceLocal/identity.plist"
    public static let notifications = "DeviceLocal/notifications.plist"
    public static let events = "DeviceLocal/events.jsonl"
    public static let lock = "DeviceLocal/lock"
    /// The journal a restore writes in its staging directory (`ROOT/.devicectl-restore-*`) while it moves files in.
    public static let restoreJournal = ".devicectl-restore-journal"
    /// The home-screen layout (backed up, as iOS backs up the home screen).
    public static let homeScreen = "Library/SpringBoard/IconState.plist"
    /// The container metadata file inside every container.
    public static let containerMetadata = ".com.apple.mobile_container_manager.metadata.plist"

    /// App data and extension containers' sub-directories that iOS never backs up (a restore recreates them
    /// empty). BackupKit's DevicePathRules skips each, with its own reason.
    public static let neverBackedUpInDataContainers = ["Library/Caches", "tmp", "SystemData"]
}

/// The kinds of container, each in its own class directory.
public enum ContainerKind: String, Sendable, CaseIterable, Codable {
    case bundle, data, group, plugin

    /// The class directory relative to ROOT.
    public var directory: String {
        switch self {
        case .bundle: "Containers/Bundle/Application"
        case .data: "Containers/Data/Application"
        case .group: "Containers/Shared/AppGroup"
        case .plugin: "Containers/Data/PluginKitPlugin"
        }
    }

    /// `MCMMetadataContentClass` as iOS writes it.
    public var contentClass: Int {
        switch self {
        case .bundle: 1
        case .data: 2
        case .plugin: 4
        case .group: 7
        }
    }
}
