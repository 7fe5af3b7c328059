// FormatSink: what a backup format does with the walked members: the backup's format stage.

/// A backup format. The formatting thread (`BatchConsumer`) hands it each member in archive order (depth first,
/// a directory before its contents, names sorted bytewise), a file's data right after its member (a deferred file's,
/// in a run that defers, after `membersComplete()`, at its `resume`), and last the manifest (`ManifestWriter.finish`),
/// then `finish()`. The walk, the exclusion rules, hashing, the manifest's
/// lines and the members digest are done before a sink sees anything, so a second format (a MobileSync
/// directory, say) implements only this. Called on one thread at a time; never concurrently.
protocol FormatSink: AnyObject, SendableMetatype {
    /// Starts `member`; for a file, `member.size` bytes follow in `write` calls.
    func begin(_ member: SinkMember) throws(BackupError)

    /// The next bytes of the current file's data.
    func write(_ data: UnsafeRawBufferPointer) throws(BackupError)

    /// Every member has been begun: what follows is the data of the files begun `deferred` (`SinkMember.deferred`),
    /// each after a `resume`, then the manifest. Only a run that defers calls it.
    func membersComplete() throws(BackupError)

    /// The next deferred file's data (`size` bytes) follows in `write` calls, in the order the files were begun.
    func resume(size: UInt64) throws(BackupError)

    /// Ends the archive after the manifest and waits until every byte is written (the destination is
    /// committed by its owner afterwards).
    func finish() throws(BackupError)

    /// Bytes written to the destination so far (after compression); final after `finish()`.
    var bytesWritten: UInt64 { get }

    /// Non-fatal notes about members the format stored with a warning.
    var notes: [String] { get }

    /// What the format stored, when it is not every member handed to it (a MobileSync backup leaves out the
    /// directories above the containers and their metadata, and stores hard links as files); nil: every member.
    var storedCounts: EntryCounts? { get }
}

extension FormatSink {
    var storedCounts: EntryCounts? { nil }

    func membersComplete() throws(BackupError) {}

    /// A format that stores members in order (a tar) is never handed deferred files.
    func resume(size: UInt64) throws(BackupError) {
        throw .output("internal error: deferred file data for a format that stores members in order")
    }
}
