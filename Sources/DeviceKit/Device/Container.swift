// Container: one container directory (bundle, data, App Group or plugin), named by its metadata plist.

/// A container found on the device by its identifier.
public struct Container: Sendable, Equatable {
    public let kind: ContainerKind
    /// `MCMMetadataIdentifier`: the bundle id, group id or extension id.
    public let identifier: String
    /// The directory name under the kind's class directory.
    public let uuid: String
    /// Absolute path of the container directory, for messages (files are reached through the device root).
    public let path: String

    public init(kind: ContainerKind, identifier: String, uuid: String, path: String) {
        self.kind = kind
        self.identifier = identifier
        self.uuid = uuid
        self.path = path
    }

    /// The container's path relative to the device root, e.g. `Containers/Shared/AppGroup/<UUID>`.
    public var relativePath: String { "\(kind.directory)/\(uuid)" }

    /// The identifier a container's metadata plist (at `path`, named in the error) gives it. A
    /// `MCMMetadataUUID` naming another directory than `uuid` (when given) is refused, as containermanagerd
    /// refuses it; devicectl's own lookups pass none, finding containers by identifier after a rename.
    static func identifier(metadata: [String: Any], path: String, uuid: String? = nil) throws -> String {
        if let uuid, let recorded = metadata["MCMMetadataUUID"] {
            guard let recorded = recorded as? String else {
                throw DeviceError.malformedPlist(path: path, reason: "MCMMetadataUUID is not a string")
            }
            if recorded.uppercased() != uuid.uppercased() {
                throw DeviceError.malformedPlist(
                    path: path, reason: "MCMMetadataUUID '\(recorded)' does not match the directory's name '\(uuid)'")
            }
        }
        guard let identifier = metadata["MCMMetadataIdentifier"] as? String else {
            throw DeviceError.malformedPlist(path: path, reason: "no MCMMetadataIdentifier string")
        }
        do {
            try DeviceValue.identifier(identifier, field: "MCMMetadataIdentifier")
        } catch {
            throw DeviceError.malformedPlist(path: path, reason: "\(error)")
        }
        return identifier
    }
}
