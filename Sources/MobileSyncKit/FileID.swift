// FileID: a backed-up file's name, the SHA-1 of its domain and relative path.
import CCrypto
import SystemKit

/// `lowercase hex(SHA-1(domain + "-" + relativePath))`: the `fileID` column and the content file's name,
/// `<first two characters>/<fileID>` (reference §1.3). Hashes exactly the bytes stored in `relativePath`.
public enum FileID {
    public static func of(domain: String, relativePath: String) -> String {
        var text = Array(domain.utf8)
        text.append(UInt8(ascii: "-"))
        text += relativePath.utf8
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        text.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA1(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return Hex.encode(digest)
    }

    /// Whether `text` is a fileID as every reader accepts it: 40 lowercase hex digits.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
