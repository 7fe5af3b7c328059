// DeviceError: what can be wrong with a device root or a request against it.

/// A device-level failure with a message that names the file or identifier and the cause.
public enum DeviceError: Error, CustomStringConvertible, Equatable, Sendable {
    case notADevice(String)
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

    public var description: String {
        switch self {
        case .notADevice(let path):
            "\(path) is not a device root (no \(DeviceLayout.identity)); create one with 'devicectl init'"
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
        }
    }
}
