// RestoreWarnings: what a restore skipped or could not check, summarised (never one line per file).

/// Counts of things skipped, turned into a few warning lines at the end.
struct RestoreWarnings {
    /// Members under DeviceLocal/ (device-local state is never applied from an archive).
    var deviceLocal = 0
    /// Extended attributes outside `user.*`, by name (a few names kept for the message).
    var otherXattrs = 0
    var otherXattrNames: [String] = []
    /// `user.*` xattrs on symlinks (Linux does not allow them).
    var symlinkXattrs = 0
    /// The archive has no manifest.
    var noManifest = false
    /// What the backup's source found (a MobileSync backup: links not restored, sizes other than recorded).
    var source: [String] = []
    /// Staging directories of killed restores removed first.
    var staleStaging: [String] = []
    /// Top-level directories whose mode or mtime could not be set after the move (the errors).
    var unappliedModes: [String] = []

    mutating func skippedXattr(_ name: String) {
        otherXattrs += 1
        if otherXattrNames.count < 5 && !otherXattrNames.contains(name) { otherXattrNames.append(name) }
    }

    var messages: [String] {
        var lines: [String] = []
        if noManifest {
            lines.append("the archive has no devicectl manifest (\(Manifest.memberName)): nothing could be verified")
        }
        lines += source
        if deviceLocal > 0 {
            lines.append(
                "skipped \(deviceLocal) DeviceLocal/ members: device-local state is never restored "
                    + "(this device keeps its own identity)"
            )
        }
        if otherXattrs > 0 {
            lines.append(
                "skipped \(otherXattrs) extended attributes outside user.* "
                    + "(\(otherXattrNames.joined(separator: ", "))): only user.* is restored"
            )
        }
        if symlinkXattrs > 0 {
            lines.append(
                "skipped \(symlinkXattrs) extended attributes on symlinks (Linux does not allow user.* on symlinks)")
        }
        for name in staleStaging {
            lines.append("removed \(name), left by an interrupted restore")
        }
        for failure in unappliedModes {
            lines.append("restored, but could not set a directory's permissions or time: \(failure)")
        }
        return lines
    }
}
