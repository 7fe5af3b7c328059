// MalformedPlistTests: every plist that describes a device, when malformed, fails with an error naming
// the file; launch checks everything before it writes anything.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct MalformedPlistTests {
    /// The plists a device is made of.
    enum Target: String, CaseIterable {
        case containerMetadata, infoPlist, groupDefaults, homeScreen, identity, notifications

        func path(on device: Device) throws -> String {
            let app = try device.app("com.example.news")
            switch self {
            case .containerMetadata:
                return "\(try device.groupContainer("group.com.example.news").path)/\(DeviceLayout.containerMetadata)"
            case .infoPlist: return "\(app.bundleContainer.path)/News.app/Info.plist"
            case .groupDefaults: return try device.defaults("group.com.example.news").path
            case .homeScreen: return device.path(DeviceLayout.homeScreen)
            case .identity: return device.path(DeviceLayout.identity)
            case .notifications: return device.path(DeviceLayout.notifications)
            }
        }

        /// The read that must report the file.
        func read(_ device: Device) throws {
            switch self {
            case .containerMetadata, .infoPlist, .homeScreen, .identity: try device.validate()
            case .groupDefaults: _ = try device.defaults("group.com.example.news").dictionary()
            case .notifications: _ = try NotificationStore(device: device).all()
            }
        }
    }

    /// Bad contents: not a plist, empty, a plist of the wrong shape.
    static let corruptions: [(String, [UInt8])] = [
        ("garbage", Array("this is not a property list".utf8)),
        ("empty", []),
        ("truncated", Array("bplist00".utf8) + [0xD1, 0x01]),
        (
            "wrong shape",
            Array(try! PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0))
        ),
    ]

    static func device(in dir: String) throws -> Device {
        let device = try TestPhone("\(dir)/phone", apps: ["com.example.news"]).device
        try device.defaults("group.com.example.news").set("notificationEnabled", to: false)
        try NotificationStore(device: device).schedule(
            app: "com.example.news", title: "t", body: "b", at: TestPhone.start,
            fireDate: TestPhone.at(hours: 24))
        return device
    }

    @Test(arguments: Target.allCases, 0..<corruptions.count)
    func malformedFileIsNamed(_ target: Target, _ corruption: Int) throws {
        try withTemporaryDirectory { dir in
            let device = try Self.device(in: dir)
            let path = try target.path(on: device)
            let (name, bytes) = Self.corruptions[corruption]
            // An identity or metadata plist that is an array is wrong in shape too.
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(throws: (any Error).self, "\(target) \(name)") { try target.read(device) }
            do {
                try target.read(device)
            } catch {
                #expect("\(error)".contains(path), "\(target) \(name): \(error)")
                #expect("\(error)".contains("malformed"), "\(target) \(name): \(error)")
            }
        }
    }

    @Test(arguments: [Target.groupDefaults, .notifications, .identity, .infoPlist, .containerMetadata])
    func launchChangesNothingWhenAPlistIsMalformed(_ target: Target) throws {
        try withTemporaryDirectory { dir in
            let device = try Self.device(in: dir)
            let path = try target.path(on: device)
            let group = try device.groupContainer("group.com.example.news")
            let eventsBefore = try EventLog(device: device).events()
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: path))
            #expect { try device.launch("com.example.news", at: TestPhone.at(hours: 48)) } throws: { error in
                "\(error)".contains(path)
            }
            #expect(!FileManager.default.fileExists(atPath: "\(group.path)/device-restoration-marker.txt"))
            #expect(try EventLog(device: device).events() == eventsBefore)
        }
    }

    @Test func infoPlistWithoutBundleIdentifierIsNamed() throws {
        try withTemporaryDirectory { dir in
            let device = try Self.device(in: dir)
            let path = try Target.infoPlist.path(on: device)
            try PropertyListFile.write(["CFBundleName": "News"], to: path)
            #expect(throws: DeviceError.malformedPlist(path: path, reason: "no CFBundleIdentifier string")) {
                try device.apps()
            }
        }
    }

    @Test func metadataWithoutIdentifierIsNamed() throws {
        try withTemporaryDirectory { dir in
            let device = try Self.device(in: dir)
            let path = try Target.containerMetadata.path(on: device)
            try PropertyListFile.write(["MCMMetadataUUID": "x"], to: path)
            #expect(throws: DeviceError.malformedPlist(path: path, reason: "no MCMMetadataIdentifier string")) {
                try device.containers(.group)
            }
        }
    }
}
