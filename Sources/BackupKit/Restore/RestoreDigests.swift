// RestoreDigests: what a restore hashes for the manifest's check, kept only for a format that carries a manifest.
import SystemKit

/// Each file's SHA-256, logged with its path and size, and the members digest: the manifest's check compares them
/// after the last member (`ManifestCheck`). A restore keeps them only for a format that carries devicectl's manifest
/// (`FormatSource.carriesManifest`): for any other, nothing would check them.
struct RestoreDigests {
    let log: DigestLog
    let members: Manifest.MemberDigest
    /// The digest of the file being read.
    let file: SHA256Digest

    init(spillDirectory: SharedDescriptor) throws {
        log = DigestLog(spillDirectory: spillDirectory)
        members = try Manifest.MemberDigest()
        file = try SHA256Digest()
    }

    /// Starts the next file's digest.
    func startFile() throws {
        try file.reset()
    }

    /// Logs the file just read (`path`, `size` and its digest).
    func logFile(_ path: [UInt8], size: UInt64) throws {
        try file.withFinalDigest { try log.append(path: path, size: size, digest: $0) }
    }
}
