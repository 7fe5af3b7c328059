// ArchiveFailure: an archive that could not be read, named as the user gave it.

/// A reading failure of the archive the user named: `devicectl: ARCHIVE: <cause>`. The cause is kept as it is
/// (its exit status too: an interruption is still 128 + the signal).
struct ArchiveFailure: Error, CustomStringConvertible {
    let archive: String
    let cause: any Error

    var description: String { "\(archive == "-" ? "standard input" : archive): \(cause)" }
}
