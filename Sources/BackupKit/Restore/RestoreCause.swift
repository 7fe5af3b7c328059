// RestoreCause: another layer's error that stopped a restore, kept as thrown; a staged file named as the archive's.
import DeviceKit
import SystemKit

/// The error a restore step failed with, as its layer threw it: a `SystemError` keeps its call, path and errno, a
/// `DeviceError` its file and reason. When the step worked in the staging directory, `staging` is that
/// directory's path as the error's paths begin; the directory is removed once the restore fails, so the
/// description names a file in it by its place in the archive (`the archive's Library/SpringBoard/...`), computed
/// from the error's path fields when shown.
public struct RestoreCause: Error, CustomStringConvertible, Equatable, Sendable {
    /// The error as thrown.
    public let error: any Error
    /// The staging directory's path as it begins the paths in `error`, or nil when the step was not in it.
    public let staging: String?

    public init(_ error: any Error, staging: String? = nil) {
        self.error = error
        self.staging = staging
    }

    /// The failed system call, when that is what the step failed with.
    public var systemError: SystemError? { error as? SystemError }

    /// `path` as the user reads it: below the staging directory, the archive member's path (`the archive's X`).
    public func shown(_ path: String) -> String {
        guard let staging, path.hasPrefix(staging + "/") else { return path }
        return "the archive's " + path.dropFirst(staging.count + 1)
    }

    public var description: String {
        // A restore's own refusal inside a step: what is wrong, without its "; nothing was restored" (the error
        // that holds this cause says that once).
        if let failure = error as? RestoreError { return failure.message }
        guard staging != nil else { return (error as? SystemError)?.sentence ?? "\(error)" }
        switch error {
        case let failure as SystemError:
            return SystemError(failure.call, path: shown(failure.path), code: failure.code).sentence
        case let failure as DeviceError:
            return failure.mappingPaths(shown).description
        default:
            return "\(error)"
        }
    }

    /// Equal when the errors are of one type and equal by its `==`; an error type that is not `Equatable` is
    /// equal when its descriptions are (it has no other identity to compare).
    public static func == (lhs: RestoreCause, rhs: RestoreCause) -> Bool {
        guard lhs.staging == rhs.staging, type(of: lhs.error) == type(of: rhs.error) else { return false }
        let value: Any = lhs.error
        if let value = value as? any Equatable { return value.isEqual(to: rhs.error) }
        return "\(lhs.error)" == "\(rhs.error)"
    }
}

extension Equatable {
    /// Whether `other` is a value of this type equal to this one.
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}
