// BackupEngine+MobileSync: `devicectl backup --format mobilesync`: the same walk, exclusion and batches as a tar
// backup, into a MobileSync backup directory.
import DeviceKit
import MobileSyncKit
import SystemKit
import TarKit

extension BackupEngine {
    /// The iterations of the (unused) keybag an unencrypted backup carries, as devices write it.
    static let unencryptedKeyBagIterations: UInt32 = 10_000

    /// Writes a MobileSync backup of the device root `request.root` to the directory `request.output` names
    /// (see `BackupDirectory`); SIGINT, SIGTERM or SIGHUP (when `ProcessSignals.record()` is on) stop it between members.
    static func backupMobileSync(
        _ request: BackupRequest, progress: ((BackupProgress) -> Void)?, warning: @escaping (String) -> Void,
        afterRead: ((String) -> Void)?, duringRead: ((String, UInt64) -> Void)?, hashing: HashPlacement?,
        stored: ((StoredPath) -> Void)?
    ) throws -> BackupSummary {
        guard case .file(let path) = request.output else {
            throw BackupError.output("a MobileSync backup is a directory: give -o DIR, not standard output")
        }
        try checkRoot(request.root)
        guard Device.isDevice(at: request.root) else {
            throw BackupError.output(
                "cannot make a MobileSync backup of \(request.root): it is not a device root "
                    + "(its domains are a device's containers; see 'devicectl init --adopt')")
        }
        guard let rootStatus = try? FileStatus.of(request.root) else {
            throw BackupError.rootNotDirectory(request.root, nil)
        }
        let lock = try? Device.open(request.root).lock(wait: true)
        defer { try? lock?.release() }
        let (header, device, applications, map) = try DeviceInventory.mobileSync(
            root: request.root, created: Timestamp.format(request.created), tool: request.tool, engine: request.engine)
        let keyBag: PendingKeyBag
        var encryption: BackupEncryption?
        do {
            if let password = request.password {
                // The key derivation runs once, here: 10,000,000 SHA-256 rounds take over a second.
                encryption = try BackupEncryption(
                    password: password.bytes, iterations: (password.sha256Iterations, password.sha1Iterations))
                keyBag = PendingKeyBag(ready: encryption!.keyBag)
            } else {
                keyBag = try PendingKeyBag(unencryptedIterations: unencryptedKeyBagIterations)
            }
        } catch let error as MobileSyncError {
            throw BackupError.format(error)
        } catch let error as SystemError {
            throw BackupError.system(error)
        }
        let manifestKey = encryption?.wrappedManifestKey
        let properties = { (keyBag: BackupKeyBag) in
            BackupProperties(
                device: device, applications: applications, date: request.created, keyBag: keyBag,
                manifestKey: manifestKey, host: request.tool)
        }

        let output = try BackupDirectory(destination: path)
        var made: MobileSyncSink?
        do {
            let sink = try MobileSyncSink(
                directory: output.descriptor, shown: path, map: map, properties: properties, keyBag: keyBag,
                rootStatus: rootStatus,
                encryption: encryption, interruption: { ProcessSignals.received })
            made = sink
            var own = [IgnoredFile(device: output.identity.0, inode: output.identity.1, reason: .ownArchive)]
            if let replaced = output.replaced {
                own.append(IgnoredFile(device: replaced.0, inode: replaced.1, reason: .replacedArchive))
            }
            let run = BackupRun(
                request: request, deviceRoot: true, header: header, spillDirectory: output.parentPath,
                ownArchives: own, progress: progress, warning: warning, afterRead: afterRead, duringRead: duringRead,
                placement: hashing ?? .nowhere, stored: stored, batches: BackupEngine.mobileSyncBatchCount,
                deferFrom: BackupEngine.mobileSyncDeferFrom)
            return try run.archive(into: sink) { try output.commit() }
        } catch {
            // The sink's writer threads stop before the temporary directory they write into is removed.
            made?.stop()
            made = nil
            output.discard()
            throw error
        }
    }
}
