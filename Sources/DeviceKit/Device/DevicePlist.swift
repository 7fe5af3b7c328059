// DevicePlist: the device plists a restore reads back, checked from their bytes exactly as DeviceKit reads them.

/// A plist in a device root that a restore parses once the tree is staged (the home-screen layout, to place the
/// widgets; each container's metadata, to find containers when reinstalling apps). Restore checks such archive
/// members with `check` while extracting them and verify while hashing them: the same function, so an archive
/// whose plist restore would fail on is refused by both, naming the member.
public enum DevicePlist: Sendable, Equatable {
    /// `Library/SpringBoard/IconState.plist`.
    case homeScreen
    /// `Containers/<class>/<UUID>/.com.apple.mobile_container_manager.metadata.plist`.
    case containerMetadata

    /// The largest such plist accepted: each is read whole into memory, and devicectl's are under 1 kB.
    public static let maxBytes = PropertyListFile.structureLimit

    /// Which device plist `relativePath` (relative to ROOT, no `.` or empty components) is, if any: the paths
    /// `homeScreen()` and `containers(_:)` read (a container directory starting with `.` is not listed).
    public init?(relativePath: String) {
        if relativePath == DeviceLayout.homeScreen {
            self = .homeScreen
            return
        }
        guard relativePath.hasSuffix(DeviceLayout.containerMetadata) else { return nil }
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count == 5, components[4] == DeviceLayout.containerMetadata, !components[3].hasPrefix("."),
            ContainerKind.allCases.contains(where: { $0.directory == components[..<3].joined(separator: "/") })
        else { return nil }
        self = .containerMetadata
    }

    /// Parses `bytes` as DeviceKit reads the file: throws `DeviceError.malformedPlist` naming `path`.
    public func check(_ bytes: [UInt8], path: String) throws {
        guard bytes.count <= DevicePlist.maxBytes else {
            throw DeviceError.malformedPlist(
                path: path, reason: "\(bytes.count) bytes, more than a device plist may hold (\(DevicePlist.maxBytes))")
        }
        guard let dictionary = try PropertyListFile.parse(bytes, path: path) as? [String: Any] else {
            throw DeviceError.malformedPlist(path: path, reason: "the top level is not a dictionary")
        }
        switch self {
        case .homeScreen: _ = try HomeScreen(plist: dictionary, path: path)
        case .containerMetadata: _ = try Container.identifier(metadata: dictionary, path: path)
        }
    }
}
