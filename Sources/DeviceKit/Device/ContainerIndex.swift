// ContainerIndex: a device's containers by kind and identifier, listed once for a run of changes.

/// The containers of one device, each kind listed (its metadata plists read) the first time it is asked for
/// and kept up to date as `ensure` creates containers. For many changes in a row, such as a restore
/// reinstalling every app: looking each container up anew reads every container's metadata every time, which
/// made reinstalling N apps cost N² plist reads.
public struct ContainerIndex {
    public let device: Device
    private var byKind: [ContainerKind: [String: Container]] = [:]

    public init(device: Device) {
        self.device = device
    }

    /// The container of `kind` whose metadata names `identifier` (the first in directory-name order, as
    /// `Device.container` finds it); nil when there is none.
    public mutating func container(_ kind: ContainerKind, identifier: String) throws -> Container? {
        try listing(kind)[identifier]
    }

    /// The container of `kind` for `identifier`, created (with a new UUID and its metadata) when missing;
    /// `parent` is the app an extension (plugin) container belongs to.
    @discardableResult
    public mutating func ensure(_ kind: ContainerKind, identifier: String, parent: String? = nil) throws -> Container {
        if let existing = try container(kind, identifier: identifier) { return existing }
        let created = try device.createContainer(kind, identifier: identifier, parent: parent)
        byKind[kind, default: [:]][identifier] = created
        return created
    }

    private mutating func listing(_ kind: ContainerKind) throws -> [String: Container] {
        if let known = byKind[kind] { return known }
        var found: [String: Container] = [:]
        for container in try device.containers(kind) where found[container.identifier] == nil {
            found[container.identifier] = container
        }
        byKind[kind] = found
        return found
    }
}
