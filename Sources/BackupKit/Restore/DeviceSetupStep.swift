// DeviceSetupStep: which step of setting the device up in the staged tree failed (RestoreError.setup).
import DeviceKit

/// A step a restore takes on the staged tree after the last member, before anything moves into ROOT.
public enum DeviceSetupStep: Equatable, Sendable {
    /// Giving a container staged from a MobileSync backup the metadata containermanagerd writes.
    case adoptContainer(ContainerKind, identifier: String)
    /// Reinstalling an app the manifest lists (its bundle container is never backed up).
    case reinstallApp(String)
    /// Placing the manifest's widgets that the restored home screen lacks.
    case placeWidgets
    /// Reading a path the target device flags excluded from backup as a member path.
    case readFlaggedPath(String)
    /// Making the target's flagged directory in the staged tree, so it survives the move.
    case keepFlaggedDirectory(String)

    /// What failed, with `cause` (a reinstall the manifest asked for is the manifest's problem).
    func message(_ cause: RestoreCause) -> String {
        switch self {
        case .adoptContainer(let kind, let identifier):
            "cannot make the \(kind.rawValue) container of '\(identifier)': \(cause)"
        case .reinstallApp(let bundleId):
            "bad manifest (cannot reinstall app '\(bundleId)': \(cause))"
        case .placeWidgets:
            "cannot place the restored widgets: \(cause)"
        case .readFlaggedPath(let path):
            "the device's flagged path '\(path)': \(cause)"
        case .keepFlaggedDirectory(let path):
            "cannot keep the device's '\(path)' (excluded from backup on this device): \(Self.reason(cause, path))"
        }
    }

    /// `cause` said of the device's flagged `path`: a refusal of that path (no archive member) by its reason alone.
    private static func reason(_ cause: RestoreCause, _ path: String) -> String {
        guard case .refusedMember(path, let reason, _)? = cause.error as? RestoreError else { return "\(cause)" }
        return reason
    }
}
