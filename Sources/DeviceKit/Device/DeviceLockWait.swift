// DeviceLockWait: how a command waits for a device lock another devicectl holds.

/// What to do when another process holds the device lock: say so (`waiting`, called once, with the
/// holder's pid from the kernel's lock table, when it can be told) and wait, at most `timeout` seconds
/// (nil: forever).
public struct DeviceLockWait: Sendable {
    /// The longest wait in seconds; nil waits until the lock is free.
    public var timeout: Double?
    /// Called once, before waiting, with the holder's pid (nil when it cannot be told).
    public var waiting: (@Sendable (Int32?) -> Void)?

    public init(timeout: Double? = nil, waiting: (@Sendable (Int32?) -> Void)? = nil) {
        self.timeout = timeout
        self.waiting = waiting
    }
}
