// ArchiveName: what an archive's file name says about its format, checked against --compression.
import BackupKit
import TarKit

/// The compression an archive name's suffix promises. A name without a compression suffix (`backup`,
/// `x.tar`, `/dev/null`, `phone.2026-12-01`) promises none and gets a plain tar unless `--compression`
/// says otherwise (`tar -czf x.tar` is GNU tar's way too); a suffix devicectl cannot write (`.tar.bz2`,
/// `.zip`) is refused rather than filled with something else, and so is a compression suffix that
/// contradicts `--compression` (`.tar.zst` with gzip, `.tgz` with none).
enum ArchiveName {
    /// What a name's suffix says.
    enum Promise: Equatable {
        /// No compression suffix (none at all, `.tar`, or a suffix that is no archive's).
        case nothing
        /// A suffix that means this compression.
        case compression(Compression, suffix: String)
        /// An archive or compression suffix devicectl does not write.
        case unsupported(suffix: String)
    }

    /// Suffixes, longest first within a family, with what they mean (compared case-insensitively).
    private static let known: [(String, Compression)] = [
        (".tar.gz", .gzip), (".tgz", .gzip), (".gz", .gzip),
        (".tar.zst", .zstd), (".tar.zstd", .zstd), (".tzst", .zstd), (".zst", .zstd), (".zstd", .zstd),
        (".tar.xz", .xz), (".txz", .xz), (".xz", .xz),
    ]

    /// Archive and compression suffixes of other tools (GNU tar's `--auto-compress` list, zip, 7z, rar, cpio).
    private static let unsupported = [
        ".bz2", ".tbz", ".tbz2", ".tb2", ".tz2", ".lz4", ".tlz4", ".lz", ".lzma", ".tlz", ".lzo", ".tzo",
        ".z", ".taz", ".br", ".zip", ".7z", ".rar", ".cpio", ".jar", ".ar", ".cab",
    ]

    /// What the last component of `path` promises.
    static func promise(of path: String) -> Promise {
        let base = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let lower = base.lowercased()
        for (suffix, compression) in known where lower.hasSuffix(suffix) && lower.count > suffix.count {
            return .compression(compression, suffix: String(base.suffix(suffix.count)))
        }
        for suffix in unsupported where lower.hasSuffix(suffix) && lower.count > suffix.count {
            return .unsupported(suffix: String(base.suffix(suffix.count)))
        }
        return .nothing
    }

    /// The compression to write `path` with: `requested` (from `--compression`) or the one its suffix
    /// implies. Throws, naming the file and the suffix, when the suffix is one devicectl does not write or
    /// contradicts `requested`.
    static func compression(for path: String, requested: Compression?) throws(UsageError) -> Compression {
        switch promise(of: path) {
        case .nothing:
            return requested ?? .none
        case .compression(let implied, let suffix):
            if let requested, requested != implied {
                throw UsageError(
                    "-o \(path): the suffix '\(suffix)' means \(implied.rawValue) compression, but --compression is "
                        + "\(requested.rawValue); name the archive \(suggestedSuffix(requested)) "
                        + "or drop --compression", command: BackupCommand.spec.name)
            }
            return implied
        case .unsupported(let suffix):
            throw UsageError(
                "-o \(path): devicectl cannot write a '\(suffix)' archive; it writes .tar, .tar.gz, .tar.zst "
                    + "or .tar.xz (or a name without an archive suffix)", command: BackupCommand.spec.name)
        }
    }

    private static func suggestedSuffix(_ compression: Compression) -> String {
        switch compression {
        case .none: "*.tar"
        case .gzip: "*.tar.gz"
        case .zstd: "*.tar.zst"
        case .xz: "*.tar.xz"
        }
    }
}
