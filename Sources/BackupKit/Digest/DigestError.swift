// DigestError: OpenSSL could not set up a SHA-256 computation.

/// OpenSSL failed to set up a digest.
public struct DigestError: Error, CustomStringConvertible, Sendable {
    /// The OpenSSL function that failed.
    public let call: String
    public init(_ call: String) { self.call = call }
    public var description: String { "\(call) failed: cannot compute SHA-256 (OpenSSL libcrypto)" }
}
