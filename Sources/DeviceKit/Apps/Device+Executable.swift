// Device+Executable: an app's entitlements as its executable carries them (when the bundle has no .xcent).
import Glibc
import SystemKit

extension Device {
    /// The entitlements in the executable `CFBundleExecutable` names in `info` (the Info.plist at `infoPath`,
    /// shown in errors), inside the bundle directory `app`; nil when there is no such key, no such file or no
    /// entitlements in it. The name must be one file name; the file is reached only beneath the device root,
    /// never through a symlink, and must be a regular file of at most `ExecutableEntitlements.fileLimit`
    /// bytes (checked before reading). A malformed executable or entitlements plist is a `malformedFile`
    /// naming the executable.
    func executableEntitlements(
        app: String, info: [String: Any], infoPath: String
    ) throws -> (plist: [String: Any], path: String)? {
        guard let raw = info[InstalledApp.executableKey] else { return nil }
        guard let name = raw as? String else {
            throw DeviceError.malformedPlist(path: infoPath, reason: "\(InstalledApp.executableKey) is not a string")
        }
        do {
            try DeviceValue.fileName(name, field: InstalledApp.executableKey)
        } catch {
            throw DeviceError.malformedPlist(path: infoPath, reason: "\(error)")
        }
        let relative = "\(app)/\(name)"
        let shown = path(relative)
        let opened = { () throws -> FileDescriptor? in
            do throws(SystemError) {
                return try directory.openRegular(relative, flags: O_RDONLY)
            } catch {
                switch error.code {
                case ENOENT: return nil
                case ELOOP: throw DeviceError.malformedFile(path: shown, reason: "the app executable is a symbolic link")
                case EINVAL, EISDIR:
                    throw DeviceError.malformedFile(path: shown, reason: "the app executable is not a regular file")
                default: throw error
                }
            }
        }
        guard let file = try opened() else { return nil }
        let bytes: [UInt8]?
        do {
            let size = try file.status().size
            bytes = try ExecutableEntitlements.entitlements(size: size) { offset, count in
                try file.read(at: offset, count: count)
            }
        } catch let error as ExecutableFormatError {
            throw DeviceError.malformedFile(path: shown, reason: "not a readable app executable: \(error.reason)")
        }
        try file.close()
        guard let bytes else { return nil }
        let plist: Any
        do {
            plist = try PropertyListFile.parse(bytes, path: shown)
        } catch {
            throw DeviceError.malformedFile(path: shown, reason: "its entitlements are not a property list")
        }
        guard let dictionary = plist as? [String: Any] else {
            throw DeviceError.malformedFile(path: shown, reason: "its entitlements are not a dictionary")
        }
        return (dictionary, shown)
    }
}
