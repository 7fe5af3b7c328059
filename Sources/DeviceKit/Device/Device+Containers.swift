// Device+Containers: finding containers by identifier (never by remembered path) and creating them.
import Foundation
import Glibc
import SystemKit

extension Device {
    /// Every container of `kind`, in directory-name order.
    public func containers(_ kind: ContainerKind) throws -> [Container] {
        guard let names = try directory.names(kind.directory) else { return [] }
        var result: [Container] = []
        for bytes in names where bytes.first != UInt8(ascii: ".") {
            let name = String(decoding: bytes, as: UTF8.self)
            guard Array(name.utf8) == bytes else { continue }
            let relative = "\(kind.directory)/\(name)"
            let metadataPath = "\(relative)/\(DeviceLayout.containerMetadata)"
            guard try directory.status(relative)?.kind == .directory,
                let metadata = try PropertyListFile.readDictionary(metadataPath, in: directory)
            else { continue }
            let identifier = try Container.identifier(metadata: metadata, path: path(metadataPath))
            result.append(Container(kind: kind, identifier: identifier, uuid: name, path: path(relative)))
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
    /// The metadata has the keys containermanagerd writes (identifier, UUID = the directory name, content
    /// class, versions, the user identity of the classes that need one, installd's `MCMMetadataInfo`: the
    /// content-protection class and, on an extension container, the parent app `parent`).
    func createContainer(_ kind: ContainerKind, identifier: String, parent: String? = nil) throws -> Container {
        try Device.validate(identifier: identifier)
        let uuid = UUID().uuidString
        let relative = "\(kind.directory)/\(uuid)"
        let container = Container(kind: kind, identifier: identifier, uuid: uuid, path: path(relative))
        try directory.makeDirectories(relative)
        try writeMetadata(of: container, parent: parent)
        switch kind {
        case .data, .plugin:
            for sub in ["Documents", "Library/Preferences", "Library/Caches", "tmp", "SystemData"] {
                try directory.makeDirectories("\(relative)/\(sub)")
            }
        case .group:
            try directory.makeDirectories("\(relative)/Library/Preferences")
        case .bundle:
            break
        }
        return container
    }

    /// Makes the directory `<kind's directory>/<uuid>`, already in the device (a restore staged it from a backup that
    /// names containers by identifier only), the container of `identifier`: writes its metadata as
    /// `createContainer` does (`parent`: an extension's app). Fails if the directory holds metadata already.
    @discardableResult
    public func adoptContainer(_ kind: ContainerKind, identifier: String, uuid: String, parent: String? = nil) throws
        -> Container
    {
        try Device.validate(identifier: identifier)
        let container = Container(
            kind: kind, identifier: identifier, uuid: uuid, path: path("\(kind.directory)/\(uuid)"))
        try writeMetadata(of: container, parent: parent)
        return container
    }

    /// containermanagerd's metadata plist in `container`'s directory.
    private func writeMetadata(of container: Container, parent: String?) throws {
        let kind = container.kind
        let identifier = container.identifier
        var metadata: [String: Any] = [
            "MCMMetadataIdentifier": identifier,
            "MCMMetadataUUID": container.uuid,
            "MCMMetadataContentClass": kind.contentClass,
            "MCMMetadataVersion": 6,
            "MCMMetadataSchemaVersion": 1,
            "MCMMetadataActiveDPClass": 0,
        ]
        if kind != .bundle {
            metadata["MCMMetadataUserIdentity"] = [
                "personaUniqueString": "C0FFEE00-0000-4000-8000-000000000501", "posixUID": 501, "posixGID": 501,
                "type": 0, "version": 2,
            ] as [String: Any]
            var info: [String: Any] = ["com.apple.MobileInstallation.ContentProtectionClass": 3]
            if kind == .plugin, let parent { info["com.apple.MobileInstallation.ParentBundleID"] = parent }
            metadata["MCMMetadataInfo"] = info
        }
        try PropertyListFile.write(metadata, to: "\(container.relativePath)/\(DeviceLayout.containerMetadata)", in: directory)
    }

    /// Checks that `identifier` is a plausible bundle or group id (no path separators or traversal).
    static func validate(identifier: String) throws {
        guard (try? DeviceValue.identifier(identifier, field: "identifier")) != nil else {
            throw DeviceError.invalidIdentifier(identifier)
        }
    }
}
