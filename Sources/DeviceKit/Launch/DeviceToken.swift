// DeviceToken: the APNs device token the simulated app sends at launch.
import SystemKit

/// A push token: 64 hex characters derived from the device identity and the bundle id, so the same app
/// has a different token on a new device (as Apple documents for restores and new devices).
public enum DeviceToken {
    public static func derive(udid: String, bundleId: String) -> String {
        Hex.encode(SHA256Hash.of(Array("apns-token:\(udid):\(bundleId)".utf8)))
    }
}
