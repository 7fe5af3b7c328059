// ContainerIndex: a device's containers by kind and identifier, listed once for a run of changes.

/// The containers of one device, each kind listed (its metadata plists read) the first time it is asked for
/// and kept up to date as `ensure` creates containers. For many changes in a row, such as a restore
/// reinstalling every app: looking each container up anew reads every container's metadata every time, which
/// made reinstalling N apps cost N² plist reads. Read-only commands that look up several containers (`status`,
/// `widget-refresh`) use one too: `status` of a 3-app device read each App Group's metadata seven times.
public struct ContainerIndex {
    public let device: Device
    private var byKind: [ContainerKind: [String: Container]] = [:]
    /// Each kind's containers in directory-name order (`Device.containers`), as listed.
    private var ordered: [ContainerKind: [Container]] = [:]

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
        ordered[kind, default: []].append(created)
        return created
    }

    /// Every container of `kind` (listed once; those `ensure` made since, after them).
    public mutating func containers(_ kind: ContainerKind) throws -> [Container] {
        _ = try listing(kind)
        return ordered[kind] ?? []
    }

    /// The defaults suite for `domain`, as `Device.defaults` resolves it: an installed app's own suite in its data
    /// container, else an App Group's shared suite in the group container.
    public mutating func defaults(_ domain: String) throws -> DefaultsSuite {
        for kind in [ContainerKind.data, .group] {
            if let container = try container(kind, identifier: domain) {
                return DefaultsSuite(
                    domain: domain, relativePath: "\(container.relativePath)/Library/Preferences/\(domain).plist",
                    in: device.directory)
            }
        }
        throw DeviceError.unknownDomain(domain)
    }

    private mutating func listing(_ kind: ContainerKind) throws -> [String: Container] {
        if let known = byKind[kind] { return known }
        var found: [String: Container] = [:]
        let all = try device.containers(kind)
        for container in all where found[container.identifier] == nil {
            found[container.identifier] = container
        }
        byKind[kind] = found
        ordered[kind] = all
        return found
    }
}
