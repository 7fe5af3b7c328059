// Device+Containers: finding containers by identifier (never by remembered path) and creating them.
import Foundation
import Glibc
import SystemKit

extension Device {
    /// Every container of `kind`, in directory-name order.
    public func containers(_ kind: ContainerKind) throws -> [Container] {
        let directory = path(kind.directory)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var result: [Container] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let metadataPath = "\(directory)/\(name)/\(DeviceLayout.containerMetadata)"
            guard let metadata = try PropertyListFile.readDictionary(metadataPath) else { continue }
            let identifier = try Container.identifier(metadata: metadata, path: metadataPath)
            result.append(Container(kind: kind, identifier: identifier, uuid: name, path: "\(directory)/\(name)"))
        }
        return result
    }

    /// The container of `kind` whose metadata names `identifier`, like
    /// `containerURL(forSecurityApplicationGroupIdentifier:)`; nil when there is none.
    public func container(_ kind: ContainerKind, identifier: String) throws -> Container? {
        try containers(kind).first { $0.identifier == identifier }
    }

    /// The container of `kind` for `identifier`, created (with a new UUID and its metadata) when missing.
    @discardableResult
    public func ensureContainer(_ kind: ContainerKind, identifier: String) throws -> Container {
        if let existing = try container(kind, identifier: identifier) { return existing }
        return try createContainer(kind, identifier: identifier)
    }

    /// Creates a container of `kind` for `identifier` (a new UUID, its metadata and standard directories).
    func createContainer(_ kind: ContainerKind, identifier: String) throws -> Container {
        let uuid = UUID().uuidString
        let container = Container(kind: kind, identifier: identifier, uuid: uuid, path: path("\(kind.directory)/\(uuid)"))
        try AtomicFile.makeDirectories(container.path)
        let metadata: [String: Any] = [
            "MCMMetadataIdentifier": identifier,
            "MCMMetadataUUID": uuid,
            "MCMMetadataContentClass": kind.contentClass,
            "MCMMetadataVersion": 1,
        ]
        try PropertyListFile.write(metadata, to: "\(container.path)/\(DeviceLayout.containerMetadata)")
        switch kind {
        case .data, .plugin:
            for sub in ["Documents", "Library/Preferences", "Library/Caches", "tmp"] {
                try AtomicFile.makeDirectories("\(container.path)/\(sub)")
            }
        case .group:
            try AtomicFile.makeDirectories("\(container.path)/Library/Preferences")
        case .bundle:
            break
        }
        return container
    }

    /// Checks that `identifier` is a plausible bundle or group id (no path separators or traversal).
    static func validate(identifier: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard !identifier.isEmpty, identifier.count <= 255, identifier.allSatisfy({ allowed.contains($0) }),
            identifier != ".", identifier != ".."
        else { throw DeviceError.invalidIdentifier(identifier) }
    }
}
