// DeviceToken: the APNs device token the simulated app sends at launch.
import CCrypto
import SystemKit

/// A push token: 64 hex characters derived from the device identity and the bundle id, so the same app
/// has a different token on a new device (as Apple documents for restores and new devices).
public enum DeviceToken {
    public static func derive(udid: String, bundleId: String) -> String {
        let input = Array("apns-token:\(udid):\(bundleId)".utf8)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = input.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return Hex.encode(digest)
    }
}
