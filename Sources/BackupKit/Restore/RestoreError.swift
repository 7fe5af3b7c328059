// RestoreError: why a restore refused the archive or the destination (ROOT is left as it was).
import DeviceKit
import SystemKit
import TarKit

/// A restore failure. Every case leaves ROOT exactly as it was before the restore started.
public enum RestoreError: Error, CustomStringConvertible, Equatable, Sendable {
    /// ROOT exists and is not a fresh device (or an empty directory).
    case rootNotFresh(String)
    /// ROOT exists and is not a directory.
    case rootNotDirectory(String)
    /// ROOT does not exist, and its parent directory does not either.
    case rootParentMissing(root: String, parent: String)
    /// A member the restore will not apply: it would leave ROOT, replace or follow something, or is not a
    /// regular file, directory, symlink or hard link. `reason` says why in words; `cause`, when another layer's
    /// check refused it (its path, its record, its domain's identifier, its decryption), is that error as thrown.
    case refusedMember(String, reason: String, cause: RestoreCause? = nil)
    /// The archive does not match its manifest (each problem named; `more` not shown).
    case verificationFailed([String], more: Int)
    /// The manifest member is malformed or from an unsupported format version (or a MobileSync backup's app
    /// list cannot be reinstalled).
    case badManifest(ManifestProblem)
    /// The restore would not fit (bytes or inodes) in ROOT's file system, or exceeds the configured limit.
    case noSpace(String)
    /// SIGINT or SIGTERM arrived; everything was undone.
    case interrupted(signal: Int32)
    /// The archive is damaged, truncated, not a tar, or too large to decompress: the reader's error.
    case damaged(ArchiveReaderError)
    /// A system call failed (an I/O error, ...); everything was undone.
    case system(SystemError)
    /// A device-level failure outside the set-up steps below (a device file that cannot be read ...); everything
    /// was undone.
    case device(DeviceError)
    /// A step of setting the device up in the staged tree failed (adopting a container, reinstalling an app,
    /// placing the widgets, keeping a flagged directory): `cause` as thrown, its staged files named as the
    /// archive's when shown; everything was undone.
    case setup(DeviceSetupStep, cause: RestoreCause)
    /// Another layer's error stopped the restore, kept as thrown; everything was undone.
    case failed(RestoreCause)
    /// Anything else, said in words (nothing else failed); everything was undone.
    case aborted(String)
    /// A restore onto ROOT was killed while it moved files in, and ROOT changed since (or its journal is not
    /// readable): rolling it back could delete what was made since, so nothing was done.
    case cannotRollBack(root: String, staging: String, reason: String)

    public var description: String {
        switch self {
        case .rootNotFresh, .rootNotDirectory, .rootParentMissing, .interrupted, .cannotRollBack:
            return message
        case .verificationFailed(let problems, let more):
            var text = "the archive does not match its manifest; nothing was restored:"
            for problem in problems { text += "\n  \(problem)" }
            if more > 0 { text += "\n  ... and \(more) more" }
            return text
        default:
            return message + "; nothing was restored"
        }
    }

    /// The archive's (or MobileSync backup's) own fault: it is damaged, a member of it was refused, or it does not
    /// match its manifest (a message names the archive first).
    public var isArchiveFault: Bool {
        switch self {
        case .damaged, .refusedMember, .verificationFailed, .badManifest: true
        default: false
        }
    }

    /// What went wrong, without what the restore did about it ("nothing was restored"): for verify and list,
    /// which report the same problems without restoring.
    public var message: String {
        switch self {
        case .rootNotFresh(let root):
            return "\(root) is not a fresh device: restore only onto a device made by 'devicectl init' with no apps "
                + "and no user data, or onto a path that does not exist yet; nothing was changed"
        case .rootNotDirectory(let root):
            return "\(root) exists and is not a directory; nothing was changed"
        case .rootParentMissing(let root, let parent):
            return "cannot restore onto \(root): the directory \(parent) does not exist; nothing was changed"
        case .refusedMember(let member, let reason, _):
            return "refusing member '\(member)': \(reason)"
        case .verificationFailed(let problems, let more):
            var text = "the archive does not match its manifest:"
            for problem in problems { text += "\n  \(problem)" }
            if more > 0 { text += "\n  ... and \(more) more" }
            return text
        case .badManifest(let reason):
            return "bad manifest (\(reason))"
        case .noSpace(let reason):
            return reason
        case .damaged(let cause):
            return "cannot read the archive: \(cause)"
        case .system(let cause):
            return cause.sentence
        case .device(let cause):
            return cause.description
        case .setup(let step, let cause):
            return step.message(cause)
        case .failed(let cause):
            return cause.description
        case .aborted(let reason):
            return reason
        case .cannotRollBack(let root, let staging, let reason):
            return "a restore onto \(root) was interrupted while it moved the restored files into place, and it "
                + "cannot be rolled back: \(reason); nothing was changed. Copy out of \(root) what you want to keep "
                + "and remove it, or remove \(staging) to keep the device as it is"
        case .interrupted(let signal):
            let name = ProcessSignals.name(of: signal)
            return "interrupted by \(name); the partial restore was removed and nothing was changed"
        }
    }
}
