// ManifestProblem: why a manifest (or a MobileSync backup's app list) is unusable, its cause kept typed.
import DeviceKit

/// A manifest restore, verify and list refuse (`RestoreError.badManifest`). `description` is the problem as
/// `list` shows it and `bad manifest (...)` wraps it.
public enum ManifestProblem: Error, CustomStringConvertible, Equatable, Sendable {
    /// A problem said in words: a line out of place, a missing totals line, an unsupported format.
    case malformed(String)
    /// Line `line` (1-based) is not a manifest line.
    case unparsable(line: Int, ManifestLineError)
    /// The header holds a value devicectl refuses (an app identifier, a name, too many apps ...).
    case header(DeviceValueError)
    /// The Manifest.plist of the MobileSync backup at `backup` lists apps that cannot be reinstalled.
    case mobileSyncApps(backup: String, DeviceValueError)

    public var description: String {
        switch self {
        case .malformed(let reason): reason
        case .unparsable(let line, let error): "line \(line): \(error)"
        case .header(let error): "header: \(error)"
        case .mobileSyncApps(let backup, let error): "\(backup)/Manifest.plist: its apps cannot be reinstalled: \(error)"
        }
    }
}
