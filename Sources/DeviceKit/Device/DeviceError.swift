// DeviceError: what can be wrong with a device root or a request against it.

/// A device-level failure with a message that names the file or identifier and the cause.
public enum DeviceError: Error, CustomStringConvertible, Equatable, Sendable {
    case notADevice(String)
    /// Laid out like a device (containers, home screen) but without `DeviceLocal/identity.plist`.
    case identityMissing(String)
    /// An iOS (Simulator) data directory that was never made a device: its iOS rules would be dropped.
    case notAdopted(String)
    /// `init --adopt` refused: `reason` says why.
    case notAdoptable(path: String, reason: String)
    /// `init --repair` refused: `reason` says why.
    case notRepairable(path: String, reason: String)
    case notEmpty(String)
    case unknownApp(String)
    case unknownGroup(String)
    case unknownDomain(String)
    case malformedPlist(path: String, reason: String)
    case malformedFile(path: String, reason: String)
    case missingKey(domain: String, key: String)
    case invalidIdentifier(String)
    case noGroup(app: String)
    case noWidget(app: String)
    case xattrsUnsupported(path: String)
    case unknownNotification(String)
    case notDelivered(id: String, state: String)
    case interruptedRestore(root: String)
    /// A command acting at `now`, earlier than the device's clock (its latest event); `source` names where
    /// `now` came from (`--now`, `DEVICECTL_NOW`, the system clock).
    case clockBehind(root: String, clock: String, now: String, source: String)
    /// The device lock was not free within `seconds`; `holder` is the pid holding it, when known.
    case lockTimeout(root: String, seconds: Double, holder: Int32?)

    public var description: String {
        switch self {
        case .notADevice(let path):
            "\(path) is not a device root (no \(DeviceLayout.identity)); create one with 'devicectl init'"
        case .identityMissing(let path):
            "\(path) is laid out like a device but its identity (\(DeviceLayout.identity)) is missing, so it would be "
                + "treated as a plain directory; give it a new identity with 'devicectl init --repair \(path)'"
        case .notAdopted(let path):
            "\(path) looks like an iOS data directory (Containers/..., Library/SpringBoard) but is not a device, so it "
                + "would be treated as a plain directory; make it one with 'devicectl init --adopt \(path)'"
        case .notRepairable(let path, let reason): "\(path): nothing to repair: \(reason)"
        case .notAdoptable(let path, let reason): "\(path): cannot adopt it: \(reason)"
        case .notEmpty(let path):
            "\(path) is not empty and is not a device root; refusing to initialise it"
        case .unknownApp(let id): "no app '\(id)' is installed on this device"
        case .unknownGroup(let id): "no App Group '\(id)' exists on this device"
        case .unknownDomain(let id): "no defaults domain '\(id)': it is neither an installed app nor an App Group"
        case .malformedPlist(let path, let reason): "\(path): malformed property list (\(reason))"
        case .malformedFile(let path, let reason): "\(path): malformed (\(reason))"
        case .missingKey(let domain, let key): "The domain/default pair of (\(domain), \(key)) does not exist"
        case .invalidIdentifier(let id): "invalid identifier '\(id)': use letters, digits, '-', '_' and '.'"
        case .noGroup(let app): "app '\(app)' belongs to no App Group, so it has nowhere to share the marker and flag"
        case .noWidget(let app): "app '\(app)' has no widget (installed with --no-widget)"
        case .xattrsUnsupported(let path): "\(path): the file system does not support user extended attributes"
        case .unknownNotification(let id): "no notification '\(id)' on this device"
        case .notDelivered(let id, let state): "notification '\(id)' is \(state), not delivered: nothing to tap"
        case .interruptedRestore(let root):
            "a restore onto \(root) was interrupted while it moved the restored files into place, so the device "
                + "may be incomplete; run 'devicectl restore ARCHIVE \(root)' again to roll it back and restore"
        case .clockBehind(let root, let clock, let now, let source):
            "\(root)'s clock is at \(clock); \(source) \(now) is earlier (a device's clock only moves forward)"
        case .lockTimeout(let root, let seconds, let holder):
            "gave up after \(Self.seconds(seconds)) s waiting for another devicectl using \(root)"
                + (holder.map { " (pid \($0))" } ?? "") + "; nothing was done"
        }
    }

    /// `2`, `0.5`: seconds without a needless fraction.
    static func seconds(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
