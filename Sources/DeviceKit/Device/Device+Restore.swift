// Device+Restore: what a restore needs from DeviceKit: a device view of the tree it is assembling.

extension Device {
    /// A `Device` over `root` without requiring a device identity there. A restore assembles the restored
    /// tree in a staging directory (the identity stays in the real ROOT's `DeviceLocal`) and reinstalls
    /// apps into it with `install`, which needs only the container directories, before moving it into place.
    public static func assembling(at root: String) -> Device {
        Device(root: root)
    }
}
