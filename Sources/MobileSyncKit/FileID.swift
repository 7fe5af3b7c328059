// FileID: a backed-up file's name, the SHA-1 of its domain and relative path.
import CCrypto
import SystemKit

/// `lowercase hex(SHA-1(domain + "-" + relativePath))`: the `fileID` column and the content file's name,
/// `<first two characters>/<fileID>` (reference §1.3). Hashes exactly the bytes stored in `relativePath`.
public enum FileID {
    public static func of(domain: String, relativePath: String) -> String {
        // The one-algorithm SHA1_* calls: OpenSSL 3's one-shot `SHA1()` fetches the algorithm from the provider on
        // every call (EVP_Q_digest), a cost a backup or restore paid once a file.
        var context = SHA_CTX()
        SHA1_Init(&context)
        var domain = domain, relativePath = relativePath
        domain.withUTF8 { _ = SHA1_Update(&context, $0.baseAddress, $0.count) }
        var dash = UInt8(ascii: "-")
        SHA1_Update(&context, &dash, 1)
        relativePath.withUTF8 { _ = SHA1_Update(&context, $0.baseAddress, $0.count) }
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        digest.withUnsafeMutableBufferPointer { _ = SHA1_Final($0.baseAddress, &context) }
        return Hex.encode(digest)
    }

    /// Whether `text` is a fileID as every reader accepts it: 40 lowercase hex digits.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
