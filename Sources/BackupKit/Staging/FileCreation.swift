// FileCreation: which restore thread creates regular files in the staging tree.

/// Who makes a regular file (`openat2` with `O_CREAT | O_EXCL`): the same containment either way.
enum FileCreation: Sendable {
    /// The writer while it keeps up, the reader while a batch waits for the writer (see `StagingPipeline`).
    case adaptive
    /// Always the reader (tests).
    case reader
    /// Always the writer (tests).
    case writer
}
