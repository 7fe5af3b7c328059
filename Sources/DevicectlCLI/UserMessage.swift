// UserMessage: what a user reads for an error: their file and the cause in their terms, never a syscall's name.
import BackupKit
import Glibc
import SystemKit

/// The text of an error as devicectl prints it. Most errors describe themselves in the user's terms already; a
/// failed system call (`SystemError`, described as `openat2(PATH): No such file or directory` for logs and
/// tests) is said as `PATH: cannot open it: permission denied`, or `PATH: no such file or directory`.
enum UserMessage {
    static func text(for error: any Error) -> String {
        switch error {
        case let error as SystemError: text(for: error)
        case let failure as ArchiveFailure:
            archiveText(failure)
        default: "\(error)"
        }
    }

    /// The user's file an error is about, for a JSON error line's `path`: the archive or backup a failure is the
    /// fault of, the path a failed system call's message names, ROOT of a restore that could not write; nil
    /// otherwise, and for standard input.
    static func path(for error: any Error) -> String? {
        switch error {
        case let failure as ArchiveFailure: failure.archive == "-" ? nil : failure.archive
        case let error as SystemError: error.path.isEmpty || error.path == "-" ? nil : error.path
        case BackupError.system(let error): error.path.isEmpty || error.path == "-" ? nil : error.path
        case let failure as RestoreFailure: failure.root
        default: nil
        }
    }

    /// `ARCHIVE: cause`, the archive named once even when the cause names it too.
    private static func archiveText(_ failure: ArchiveFailure) -> String {
        let name = failure.archive == "-" ? "standard input" : failure.archive
        let cause = text(for: failure.cause)
        return cause.hasPrefix(name + ": ") ? cause : name + ": " + cause
    }

    /// `PATH: cannot ACTION: reason`, `PATH: no such file or directory`, or `cannot ACTION: reason`
    /// (`SystemError.sentence`).
    static func text(for error: SystemError) -> String { error.sentence }
}
