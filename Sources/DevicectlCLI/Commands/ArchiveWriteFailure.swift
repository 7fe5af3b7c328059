// ArchiveWriteFailure: the archive the user named could not be written, and why, in their terms.

/// `cannot write the archive to ARCHIVE: file too large`: the archive named once (the cause often names it too)
/// and the cause as a phrase, without the library call that failed.
struct ArchiveWriteFailure: Error, CustomStringConvertible {
    let archive: String
    let cause: String

    var description: String {
        let name = archive == "-" ? "standard output" : archive
        var cause = cause.hasPrefix(archive + ": ") ? String(cause.dropFirst(archive.count + 2)) : cause
        cause = (cause.first?.lowercased() ?? "") + cause.dropFirst()
        return "cannot write the archive to \(name): \(cause)"
    }
}
