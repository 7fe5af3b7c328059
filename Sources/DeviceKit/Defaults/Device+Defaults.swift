// Device+Defaults: resolving a defaults domain to its plist, as iOS does.

extension Device {
    /// The suite for `domain`: an installed app's standard suite
    /// (`<data container>/Library/Preferences/<bundle id>.plist`) or an App Group's shared suite
    /// (`<group container>/Library/Preferences/<group id>.plist`).
    /// (Looking up several, `ContainerIndex.defaults` lists the containers once.)
    public func defaults(_ domain: String) throws -> DefaultsSuite {
        var index = ContainerIndex(device: self)
        return try index.defaults(domain)
    }
}
