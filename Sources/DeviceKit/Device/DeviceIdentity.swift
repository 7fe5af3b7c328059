// DeviceIdentity: the device's own identity (UDID), device-local and never backed up.
import Foundation

/// Who this device is. Lives in `DeviceLocal/identity.plist`; a restore never replaces it.
public struct DeviceIdentity: Sendable, Equatable {
    /// A random UDID made at `devicectl init`.
    public let udid: String
    public let created: Date

    public init(udid: String, created: Date) {
        self.udid = udid
        self.created = created
    }

    /// A new identity with a random UDID.
    public static func generate(now: Date = Date()) -> DeviceIdentity {
        DeviceIdentity(udid: UUID().uuidString, created: now)
    }

    var plist: [String: Any] { ["UDID": udid, "Created": created] }

    init(plist: [String: Any], path: String) throws {
        guard let udid = plist["UDID"] as? String, !udid.isEmpty else {
            throw DeviceError.malformedPlist(path: path, reason: "no UDID string")
        }
        self.udid = udid
        self.created = plist["Created"] as? Date ?? Date(timeIntervalSince1970: 0)
    }
}
