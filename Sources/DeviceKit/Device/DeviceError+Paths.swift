// DeviceError+Paths: the same failure with its paths named another way (a staged file as the archive's).

extension DeviceError {
    /// This error with every path it names passed through `shown` (identifiers, reasons and times unchanged):
    /// a caller that knows a path better than DeviceKit does (a file of a restore's staging directory, gone once
    /// the restore fails, is named by its place in the archive) words it without editing the description.
    public func mappingPaths(_ shown: (String) -> String) -> DeviceError {
        switch self {
        case .notADevice(let path): .notADevice(shown(path))
        case .identityMissing(let path): .identityMissing(shown(path))
        case .notAdopted(let path): .notAdopted(shown(path))
        case .notAdoptable(let path, let reason): .notAdoptable(path: shown(path), reason: reason)
        case .notRepairable(let path, let reason): .notRepairable(path: shown(path), reason: reason)
        case .notEmpty(let path): .notEmpty(shown(path))
        case .malformedPlist(let path, let reason): .malformedPlist(path: shown(path), reason: reason)
        case .malformedFile(let path, let reason): .malformedFile(path: shown(path), reason: reason)
        case .xattrsUnsupported(let path): .xattrsUnsupported(path: shown(path))
        case .interruptedRestore(let root): .interruptedRestore(root: shown(root))
        case .clockBehind(let root, let clock, let now, let source):
            .clockBehind(root: shown(root), clock: clock, now: now, source: source)
        case .lockTimeout(let root, let seconds, let holder): .lockTimeout(root: shown(root), seconds: seconds, holder: holder)
        case .unknownApp, .unknownGroup, .unknownDomain, .missingKey, .invalidIdentifier, .noGroup, .noWidget,
            .unknownNotification, .notDelivered:
            self
        }
    }
}
