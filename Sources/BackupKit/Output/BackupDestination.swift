// BackupDestination: the descriptor a backup writes its archive to, once the output is open.

/// An open destination: the descriptor (borrowed: its owner closes or commits it), the directory where the
/// manifest may spill its file lines (beside the archive when it is a file), and the name messages use.
struct BackupDestination {
    let descriptor: Int32
    let spillDirectory: String
    let name: String
}
