// Device+Validation: read everything that describes a device before changing it, so a malformed
// plist is reported (naming the file) before anything is written.

extension Device {
    /// Reads the identity, every container's metadata, every app's Info.plist and the home-screen
    /// layout. Throws the first `DeviceError.malformedPlist` (which names the file), else returns.
    public func validate() throws {
        _ = try validatedState()
    }

    /// `validate`, returning what it read, each plist once (the bundle and data containers are listed by
    /// `apps`): for a caller that needs the apps and home screen too, such as a backup's manifest header.
    public func validatedState() throws -> (identity: DeviceIdentity, apps: [InstalledApp], homeScreen: HomeScreen) {
        var index = ContainerIndex(device: self)
        return try validatedState(using: &index)
    }

    /// `validatedState()`, the containers listed into `index`: a command that looks containers up after validating
    /// (`widget-refresh`) then reads none of their metadata again.
    public func validatedState(
        using index: inout ContainerIndex
    ) throws -> (identity: DeviceIdentity, apps: [InstalledApp], homeScreen: HomeScreen) {
        let identity = try identity()
        for kind in [ContainerKind.group, .plugin] { _ = try index.containers(kind) }
        let apps = try apps(using: &index)
        return (identity, apps, try homeScreen())
    }

    /// Whether `identifier` is a usable bundle or App Group id: letters, digits, `-`, `_` and `.`,
    /// at most 255 characters, not `.` or `..`.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        (try? validate(identifier: identifier)) != nil
    }
}
