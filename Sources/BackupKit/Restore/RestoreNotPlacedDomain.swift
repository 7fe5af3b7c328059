// RestoreNotPlacedDomain: a MobileSync domain a restore left out, and how many rows it held.

/// Rows of a domain outside `/var/mobile` (`RootDomain`, `KeychainDomain`, `SysContainerDomain` ...): a device root
/// is `/var/mobile`, so they are counted and reported, not restored.
public struct RestoreNotPlacedDomain: Sendable, Equatable {
    /// The domain, or its family (`SysContainerDomain` for `SysContainerDomain-<id>`).
    public let domain: String
    public let entries: UInt64

    public init(domain: String, entries: UInt64) {
        self.domain = domain
        self.entries = entries
    }
}
