// RestoreDigests: what a restore hashes for the manifest's check, kept only for a format that carries a manifest.
import SystemKit

/// Each file's SHA-256, logged with its path and size, and the members digest: the manifest's check compares them
/// after the last member (`ManifestCheck`). A restore keeps them only for a format that carries devicectl's manifest
/// (`FormatSource.carriesManifest`): for any other, nothing would check them. A written file is hashed and logged by
/// the staging pipeline's thread that writes it; a file only read, here.
struct RestoreDigests {
    let log: DigestLog
    let members: Manifest.MemberDigest
    /// The digest of a file read but not written.
    let file: SHA256Digest

    init(spillDirectory: SharedDescriptor) throws {
        log = DigestLog(spillDirectory: spillDirectory)
        members = try Manifest.MemberDigest()
        file = try SHA256Digest()
    }
}
