// Device+Marker: whether an app's marker file is there, as status and the widget see it.
import SystemKit

extension Device {
    /// Whether the marker `relative` is present: only a regular file counts (as `launch` makes and refuses
    /// anything else). Anything else there (a directory, a symlink, a FIFO) counts as absent, with a warning
    /// naming it. Throws when the marker's place cannot be examined.
    public func markerPresence(_ relative: String) throws -> (present: Bool, problem: String?) {
        guard let status = try directory.status(relative) else { return (false, nil) }
        guard status.kind == .regular else {
            let problem = "\(path(relative)): the marker is not a regular file (\(Device.describe(status.kind))); "
                + "counted as absent"
            return (false, problem)
        }
        return (true, nil)
    }

    /// `a directory`, `a symbolic link`, ... for messages.
    static func describe(_ kind: FileKind) -> String {
        switch kind {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symlink: "a symbolic link"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .unknown: "an unknown kind of file"
        }
    }
}
