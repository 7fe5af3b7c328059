// RestoreFailure: a restore stopped by a failed system call, said in the user's terms.
import SystemKit

/// `cannot restore onto ROOT: could not write 'Documents/a.txt': no space left on device; nothing was restored`.
/// The restore works in a hidden staging directory beside or inside ROOT (`.NAME.devicectl-new-…`,
/// `.devicectl-restore-…`): those names are devicectl's, never shown; a file is named by its path in the archive,
/// and devicectl's own files (journal, staging) as "its working files".
struct RestoreFailure: Error, CustomStringConvertible {
    let root: String
    let cause: SystemError

    var description: String {
        let what = Self.member(in: cause.path).map { "'\($0)'" } ?? "its working files"
        return "cannot restore onto \(root): could not \(SystemError.action(cause.call)) \(what): "
            + "\(SystemError.phrase(cause.code)); nothing was restored"
    }

    /// The archive path of the file `path` is about, or nil when it is one of devicectl's own.
    static func member(in path: String) -> String? {
        guard !path.isEmpty else { return nil }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        let isInternal: (Substring) -> Bool = { $0.hasPrefix(".") && $0.contains(".devicectl-") }
        guard let last = components.lastIndex(where: isInternal) else {
            return path.hasPrefix("/") ? nil : path
        }
        let rest = components[(last + 1)...]
        guard !rest.isEmpty, !rest.contains(where: { $0.contains(".devicectl-") }) else { return nil }
        return rest.joined(separator: "/")
    }
}
