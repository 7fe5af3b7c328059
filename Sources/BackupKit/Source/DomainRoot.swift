// DomainRoot: where a MobileSync domain's rows go in a device root, the restore's side of `DomainMap`.
import DeviceKit

/// A domain's place in a device root (reference §4.1): `/var/mobile` domains under ROOT (HomeDomain, MediaDomain,
/// CameraRollDomain, KeyboardDomain, HomeKitDomain and TonesDomain at ROOT itself, HealthDomain at `ROOT/Library`),
/// app domains in a new container of their kind (`AppDomain-`, `AppDomainGroup-`, `AppDomainPlugin-`), and every
/// other domain (RootDomain, WirelessDomain, KeychainDomain, the system containers ...) nowhere: a device root is
/// `/var/mobile` only.
enum DomainRoot: Equatable {
    /// Below ROOT: `prefix` (empty, or `Library`) and then the row's path.
    case mobile(prefix: String)
    /// In a container of `kind` for `identifier`.
    case container(ContainerKind, identifier: String)
    /// Outside `/var/mobile`: reported, not restored.
    case notPlaced

    static func of(_ domain: String) -> DomainRoot {
        if mobileDomains.contains(domain) { return .mobile(prefix: "") }
        if domain == "HealthDomain" { return .mobile(prefix: "Library") }
        for (kind, prefix) in DomainMap.domainKinds where domain.hasPrefix(prefix) {
            return .container(kind, identifier: String(domain.dropFirst(prefix.count)))
        }
        return .notPlaced
    }

    /// The `/var/mobile` domains whose paths are relative to `/var/mobile` itself.
    static let mobileDomains: Set<String> = [
        DomainMap.homeDomain, "MediaDomain", "CameraRollDomain", "KeyboardDomain", "HomeKitDomain", "TonesDomain",
    ]

    /// A domain's family for the report of what was not placed: `SysContainerDomain-com.apple.x` is
    /// `SysContainerDomain`, `RootDomain` itself.
    static func family(of domain: String) -> String {
        domain.firstIndex(of: "-").map { String(domain[..<$0]) } ?? domain
    }
}
