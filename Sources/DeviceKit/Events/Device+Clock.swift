// Device+Clock: a device's clock, which only moves forward: the time of its latest logged event.
import Foundation

extension Device {
    /// The device's clock: the time of the latest event in its log (nil for an empty log). Deliveries that a
    /// read-only command computed but did not log do not move it.
    public func clock() throws -> Date? {
        try EventLog(device: self).events().compactMap { Timestamp.parse($0.time) }.max()
    }

    /// Refuses to act at `now` when it is earlier than the device's clock (`DeviceError.clockBehind`):
    /// history cannot be rewritten, and states computed before it (a nudge pending yet tapped) are impossible.
    /// `source` names where `now` came from, for the message (`--now`, `DEVICECTL_NOW`, `the system clock`).
    public func checkClock(_ now: Date, source: String) throws {
        guard let clock = try clock(), now < clock else { return }
        throw DeviceError.clockBehind(
            root: root, clock: Timestamp.format(clock), now: Timestamp.format(now), source: source)
    }
}
