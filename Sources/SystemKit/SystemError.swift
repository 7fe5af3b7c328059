// SystemError: a failed system call, with the call, the path it was about and the cause.
import Glibc

/// A failed system call. Its description names the call, the path and `strerror(errno)`,
/// e.g. `open(/dev/x/Info.plist): No such file or directory`.
public struct SystemError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The syscall or library function that failed, e.g. `openat2`.
    public let call: String
    /// The path the call was about (empty when none).
    public let path: String
    /// The `errno` value.
    public let code: Int32

    /// The failure the calling thread's `errno` describes. `errno` is read first, before `path` is built
    /// (building a string may allocate, and an allocation may change `errno`).
    public init(_ call: String, path: @autoclosure () -> String = "") {
        let code = errno
        self.init(call, path: path(), code: code)
    }

    /// A failure with a known code (captured right after the failing call, or chosen, e.g. `EFBIG`).
    public init(_ call: String, path: String = "", code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    /// `strerror` of the code.
    public var reason: String { String(cString: strerror(code)) }

    /// `reason` as a phrase inside a sentence a user reads (`phrase(code)`).
    public var phrase: String { SystemError.phrase(code) }

    /// `strerror(code)` as a phrase inside a sentence a user reads: `No such file or directory` -> `no such file or
    /// directory` (the one place devicectl words an errno for people).
    public static func phrase(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        guard let first = text.first else { return "error \(code)" }
        return first.lowercased() + text.dropFirst()
    }

    public var description: String {
        path.isEmpty ? "\(call): \(reason)" : "\(call)(\(path)): \(reason)"
    }

    /// Runs `body` until it does not fail with EINTR; throws on -1.
    @discardableResult
    public static func check<T: BinaryInteger>(_ call: String, path: String = "", _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemError(call, path: path, code: code)
        }
    }
}
