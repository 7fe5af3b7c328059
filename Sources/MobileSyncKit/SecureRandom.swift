// SecureRandom: key material and salts from OpenSSL's CSPRNG.
import CCrypto

/// Random bytes for keys, salts and UUIDs (`RAND_bytes`).
public enum SecureRandom {
    public static func bytes(_ count: Int) throws(MobileSyncError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard status == 1 else { throw .crypto(call: "RAND_bytes") }
        return bytes
    }
}
