// JSONMessage: a warning or a problem in a `--json` result: the file it is about (if any) and the text.

/// `{"path": PATH|null, "message": TEXT}`: what every warning, problem and per-item failure looks like.
struct JSONMessage: Codable, Equatable, Sendable {
    /// The user's file the message is about; nil (null) when it is about no single file.
    @OrNull var path: String?
    /// The message as the text output words it, without the `devicectl: ` prefix.
    var message: String

    init(path: String? = nil, _ message: String) {
        self.path = path
        self.message = message
    }
}
