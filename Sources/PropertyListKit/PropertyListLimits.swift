// PropertyListLimits: how deep and how large a property list read from someone else's bytes may be.

/// Caps checked while a property list is decoded or converted, before any of it is used: nesting (`depth`) and
/// the number of values produced (`values`). Objects in a binary plist can be shared, so a file of a few hundred
/// bytes can describe 2^40 values; the value cap is what stops it, and a reference cycle is caught by the depth cap.
public struct PropertyListLimits: Sendable, Equatable {
    public var depth: Int
    public var values: Int

    public init(depth: Int, values: Int) {
        self.depth = depth
        self.values = values
    }

    /// An `MBFile` record of a MobileSync backup or its attributes: small and shallow.
    public static let record = PropertyListLimits(depth: 8, values: 4_096)
    /// A MobileSync backup's Manifest.plist, Info.plist, Status.plist.
    public static let properties = PropertyListLimits(depth: 16, values: 1_000_000)
    /// A device's own plists (container metadata, Info.plist, IconState.plist, defaults suites) and any value
    /// written: Apple's own plists nest a few dozen levels, and an 8 MiB plist without sharing holds a few million
    /// values at most.
    public static let document = PropertyListLimits(depth: 512, values: 4_000_000)
}
