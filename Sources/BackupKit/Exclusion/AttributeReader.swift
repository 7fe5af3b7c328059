// AttributeReader: one file's extended attributes, listed once into reusable buffers.
import Glibc
import SystemKit

/// Lists a file's extended attributes once (one `flistxattr`/`llistxattr`), answers which exclusion
/// attributes are set, and hands the `user.*` attributes to the archive writer sorted by name.
/// Buffers are reused from file to file: no allocation on the backup's hot path.
final class AttributeReader {
    private enum Source {
        case none
        case descriptor(Int32)
        case path(String)
    }

    /// Largest value Linux allows for one attribute (XATTR_SIZE_MAX).
    private static let maximumValueSize = 65_536

    private var names: UnsafeMutableRawBufferPointer
    private var namesLength = 0
    private var value: UnsafeMutableRawBufferPointer
    private var source = Source.none
    /// Set for an entry under the device's `Library/Preferences`: `forEachUserAttribute` leaves out the general
    /// exclusion attributes, as the backup agent removes them there before backing the file up. Reset by `load`.
    var omitsGeneralExclusion = false

    init() {
        names = .allocate(byteCount: 4096, alignment: 1)
        value = .allocate(byteCount: Self.maximumValueSize, alignment: 1)
    }

    deinit {
        names.deallocate()
        value.deallocate()
    }

    /// Whether the last loaded file has any attribute this process may read.
    var isEmpty: Bool { namesLength == 0 }

    /// Forgets the previous file (symlinks and special files carry no `user.*` attributes on Linux).
    func clear() {
        namesLength = 0
        omitsGeneralExclusion = false
        source = .none
    }

    /// Lists the attributes of the open file `fd`; `path` names it in errors.
    func load(descriptor fd: Int32, path: @autoclosure () -> String) throws(SystemError) {
        source = .descriptor(fd)
        omitsGeneralExclusion = false
        try list(path) { buffer, size in Kernel.listAttributes(of: fd, into: buffer, size: size) }
    }

    /// Lists the attributes of `path` itself (a final symlink is not followed).
    func load(path: String) throws(SystemError) {
        source = .path(path)
        omitsGeneralExclusion = false
        try list({ path }) { buffer, size in Kernel.listAttributes(of: path, into: buffer, size: size) }
    }

    private func list(_ path: () -> String, _ call: (UnsafeMutablePointer<CChar>?, Int) -> Int) throws(SystemError) {
        namesLength = 0
        while true {
            let got = call(names.baseAddress!.assumingMemoryBound(to: CChar.self), names.count)
            if got >= 0 {
                namesLength = got
                return
            }
            let code = errno
            switch code {
            case EINTR: continue
            case ENOTSUP: return
            case ERANGE:
                let needed = call(nil, 0)
                if needed < 0 {
                    let code = errno
                    throw SystemError("listxattr", path: path(), code: code)
                }
                names.deallocate()
                names = .allocate(byteCount: max(needed, names.count * 2), alignment: 1)
            default:
                throw SystemError("listxattr", path: path(), code: code)
            }
        }
    }

    /// The exclusion reasons the attributes carry, whatever the engine: Apple's three attributes present
    /// (general, cloud-only, unencrypted-only), `MobileBackup` = 1, `xdg.robots.backup` = false.
    /// `ExclusionRules.attributeReasons` keeps those the engine honours. `path` names the file in errors.
    func exclusionReasons(path: @autoclosure () -> String) throws(SystemError) -> ExclusionReasons {
        var reasons: ExclusionReasons = []
        var offset = 0
        while offset < namesLength {
            let name = names.baseAddress! + offset
            let length = strlen(name.assumingMemoryBound(to: CChar.self))
            defer { offset += length + 1 }
            let bytes = UnsafeRawBufferPointer(start: name, count: length)
            // Cheap filter: every exclusion attribute is `user.` + at least 16 bytes.
            guard length >= 21 else { continue }
            if bytes.elementsEqual(ExclusionAttributes.appleName) {
                reasons.insert(.appleExcludeXattr)
            } else if bytes.elementsEqual(ExclusionAttributes.cloudOnlyName) {
                reasons.insert(.appleCloudExcludeXattr)
            } else if bytes.elementsEqual(ExclusionAttributes.unencryptedOnlyName) {
                reasons.insert(.appleUnencryptedExcludeXattr)
            } else if bytes.elementsEqual(ExclusionAttributes.mobileBackupName) {
                if let value = try read(name.assumingMemoryBound(to: CChar.self), path),
                   ExclusionAttributes.mobileBackupExcludes(value) {
                    reasons.insert(.mobileBackupXattr)
                }
            } else if bytes.elementsEqual(ExclusionAttributes.xdgName) {
                if let value = try read(name.assumingMemoryBound(to: CChar.self), path), ExclusionAttributes.xdgExcludes(value) {
                    reasons.insert(.xdgRobotsBackup)
                }
            }
        }
        return reasons
    }

    /// Calls `body` with each `user.*` attribute's name and value, names sorted bytewise.
    func forEachUserAttribute(
        path: @autoclosure () -> String, _ body: (UnsafePointer<CChar>, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard namesLength > 0 else { return }
        var found: [UnsafePointer<CChar>] = []
        var offset = 0
        while offset < namesLength {
            let name = UnsafePointer((names.baseAddress! + offset).assumingMemoryBound(to: CChar.self))
            offset += strlen(name) + 1
            guard strncmp(name, "user.", 5) == 0 else { continue }
            if omitsGeneralExclusion && Self.isGeneralExclusion(name) { continue }
            found.append(name)
        }
        found.sort { strcmp($0, $1) < 0 }
        for name in found {
            // An attribute removed since the listing is simply not archived.
            if let value = try read(name, path) { try body(name, value) }
        }
    }

    private static func isGeneralExclusion(_ name: UnsafePointer<CChar>) -> Bool {
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name))
        return bytes.elementsEqual(ExclusionAttributes.appleName)
            || bytes.elementsEqual(ExclusionAttributes.mobileBackupName)
    }

    /// The value of `name` in the reusable value buffer (valid until the next read), or nil when absent.
    private func read(_ name: UnsafePointer<CChar>, _ path: () -> String) throws(SystemError) -> UnsafeRawBufferPointer? {
        while true {
            let got: Int
            switch source {
            case .none: return nil
            case .descriptor(let fd): got = Kernel.attribute(name, of: fd, into: value.baseAddress, size: value.count)
            case .path(let path): got = Kernel.attribute(name, of: path, into: value.baseAddress, size: value.count)
            }
            if got >= 0 { return UnsafeRawBufferPointer(start: value.baseAddress, count: got) }
            let code = errno
            if code == EINTR { continue }
            if code == ENODATA || code == ENOTSUP { return nil }
            throw SystemError("getxattr \(String(cString: name))", path: path(), code: code)
        }
    }
}
