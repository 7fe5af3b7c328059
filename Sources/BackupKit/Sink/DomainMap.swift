// DomainMap: where a device root's paths go in a MobileSync backup: a domain and a path inside it.
import DeviceKit
import Glibc

/// Maps a path relative to ROOT onto a MobileSync domain (reference §4.1): an app's data container
/// (`Containers/Data/Application/<UUID>`) is `AppDomain-<bundle id>`, an App Group's container
/// `AppDomainGroup-<group id>`, an extension's (`Containers/Data/PluginKitPlugin/<UUID>`)
/// `AppDomainPlugin-<extension id>`, each container directory being its domain's root `""`; everything else a
/// device root holds is `/var/mobile` and so `HomeDomain`, with its path unchanged (`Library/SpringBoard/...`).
/// Containers are named by their metadata's identifier (`ContainerIndex`'s listing); their UUIDs are not in a
/// backup. Not stored: the class directories above the containers, each container's metadata plist (the restore
/// writes new ones) and anything under `Containers/` that is no container of these three kinds.
struct DomainMap {
    /// Where one path goes.
    enum Placement: Equatable {
        /// A row of `domain` at `relativePath`.
        case row(domain: String, relativePath: String)
        /// Not part of a backup, silently (the directories above the containers, container metadata).
        case structure
        /// Not in any domain: a container of no known identifier, or another path under `Containers/`.
        /// `top` is the directory to name once in the warning.
        case unmapped(top: String)
    }

    static let homeDomain = "HomeDomain"
    static let metadataName = ".com.apple.mobile_container_manager.metadata.plist"
    /// The kinds that are domains, and the domain prefix of each.
    static let domainKinds: [(ContainerKind, String)] = [
        (.data, "AppDomain-"), (.group, "AppDomainGroup-"), (.plugin, "AppDomainPlugin-"),
    ]

    /// Domain by container directory (`Containers/Shared/AppGroup/<UUID>`).
    private var domains: [String: String] = [:]
    /// The directories above containers: `Containers`, `Containers/Data`, each class directory ...
    private let structure: Set<String>
    /// The most slashes a path of `structure` has (a path with more is not one of them).
    private let structureSlashes: Int
    /// The container the last path was in, and its domain: a walk gives a container's paths one after another.
    private let last = LastContainer()

    /// The last container directory looked up, as bytes, and its domain.
    private final class LastContainer {
        var directory: [UInt8] = []
        var domain: String?
    }

    /// The map of `device`'s containers. A second container of one identifier is left out (`duplicates`
    /// names them): two containers cannot share one domain's file IDs.
    init(device: Device) throws {
        var structure: Set<String> = ["Containers"]
        for kind in ContainerKind.allCases {
            var prefix = ""
            for component in kind.directory.split(separator: "/") {
                prefix += prefix.isEmpty ? String(component) : "/" + component
                structure.insert(prefix)
            }
        }
        self.structure = structure
        structureSlashes = structure.map { $0.utf8.count { $0 == UInt8(ascii: "/") } }.max() ?? 0
        for (kind, domainPrefix) in Self.domainKinds {
            var seen: Set<String> = []
            for container in try device.containers(kind) where seen.insert(container.identifier).inserted {
                domains[container.relativePath] = domainPrefix + container.identifier
            }
        }
    }

    /// The domains of the map, sorted.
    var allDomains: [String] { [Self.homeDomain] + Set(domains.values).sorted() }

    func placement(of path: String) -> Placement {
        var bytes = path
        return bytes.withUTF8 { placement($0, path) }
    }

    /// `placement(of:)` on the path's bytes: a member's path is split only where it must be, once a member (a
    /// backup asks for every member, and a split and join per member was a tenth of its time); the container's
    /// domain is looked up once for a run of paths in one container.
    private func placement(_ bytes: UnsafeBufferPointer<UInt8>, _ path: String) -> Placement {
        let containers = Array("Containers".utf8)
        guard bytes.starts(with: containers), bytes.count == containers.count || bytes[containers.count] == UInt8(ascii: "/")
        else { return .row(domain: Self.homeDomain, relativePath: path) }
        // Containers/<Data|Shared>/<Class>/<UUID>[/rest]: the end of the fourth component.
        var slashes = 0
        var end = bytes.count
        for index in bytes.indices where bytes[index] == UInt8(ascii: "/") {
            slashes += 1
            if slashes == 4 {
                end = index
                break
            }
        }
        if slashes <= structureSlashes, structure.contains(path) { return .structure }
        if slashes >= 3, let domain = domain(ofContainer: UnsafeBufferPointer(rebasing: bytes[..<end])) {
            let rest = end == bytes.count
                ? "" : String(decoding: UnsafeBufferPointer(rebasing: bytes[(end + 1)...]), as: UTF8.self)
            return rest == Self.metadataName ? .structure : .row(domain: domain, relativePath: rest)
        }
        // The first directory below the structure names what is left out.
        var top = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            top += top.isEmpty ? String(component) : "/" + component
            if !structure.contains(top) { break }
        }
        return .unmapped(top: top)
    }

    /// The domain of the container directory `directory`, nil when it is none.
    private func domain(ofContainer directory: UnsafeBufferPointer<UInt8>) -> String? {
        if let domain = last.domain, last.directory.count == directory.count,
            last.directory.withUnsafeBytes({ memcmp($0.baseAddress!, directory.baseAddress!, directory.count) }) == 0
        {
            return domain
        }
        guard let domain = domains[String(decoding: directory, as: UTF8.self)] else { return nil }
        last.directory = Array(directory)
        last.domain = domain
        return domain
    }

    /// A symlink's target as a device path: `link` (relative to ROOT) resolved from the link's directory, under
    /// `/var/mobile`; nil when it climbs above ROOT (a backup never stores such a link).
    static func devicePath(ofLink target: String, at path: String) -> String? {
        guard !target.hasPrefix("/") else { return nil }
        var components = path.split(separator: "/").dropLast().map(String.init)
        for component in target.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                guard !components.isEmpty else { return nil }
                components.removeLast()
            default: components.append(String(component))
            }
        }
        return "/var/mobile/" + components.joined(separator: "/")
    }
}
