// HostileDeviceRootEndToEndTests: a device root is written by someone else too. Symlinks planted at every
// name devicectl writes or reads, FIFOs, sparse giants: every device command stays inside ROOT (a sentinel
// directory beside it never changes), never hangs, never traps, and says what is wrong.
import Foundation
import Glibc
import TestSupport
import Testing

/// One way a device root can be hostile: `plant` changes the device at `root`, pointing into `sentinel`.
struct HostileDeviceCase: CustomTestStringConvertible, Sendable {
    let name: String
    let plant: @Sendable (_ phone: PhoneScratch, _ sentinel: String) throws -> Void
    var testDescription: String { name }
}

@Suite struct HostileDeviceRootEndToEndTests {
    static let app = "com.example.news"
    static let group = "group.com.example.news"

    /// Replaces `path` (a file or directory in the device) by a symlink to `target`.
    static func replace(_ path: String, withLinkTo target: String) throws {
        #expect(try Shell.run("rm", ["-rf", path]).status == 0)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    /// Copies what is at `path` into the sentinel (so a command following the link finds a plausible file
    /// there), then replaces `path` by a link to that copy.
    static func redirect(_ path: String, into sentinel: String, as name: String) throws {
        let copy = "\(sentinel)/\(name)"
        #expect(try Shell.run("cp", ["-a", path, copy]).status == 0)
        try replace(path, withLinkTo: copy)
    }

    static func group(_ phone: PhoneScratch) throws -> String {
        try phone.containerPath("Containers/Shared/AppGroup", group)
    }

    static let cases: [HostileDeviceCase] = [
        HostileDeviceCase(name: "the group's Library/Preferences is a link out") { phone, sentinel throws in
            try redirect("\(try group(phone))/Library/Preferences", into: sentinel, as: "Preferences")
        },
        HostileDeviceCase(name: "the group's Library is a link out") { phone, sentinel throws in
            try redirect("\(try group(phone))/Library", into: sentinel, as: "Library")
        },
        HostileDeviceCase(name: "the group container is a link out") { phone, sentinel throws in
            try redirect(try group(phone), into: sentinel, as: "group")
        },
        HostileDeviceCase(name: "the marker is a link to a file outside") { phone, sentinel throws in
            let marker = "\(try group(phone))/device-restoration-marker.txt"
            try Data().write(to: URL(fileURLWithPath: "\(sentinel)/victim"))
            try replace(marker, withLinkTo: "\(sentinel)/victim")
        },
        HostileDeviceCase(name: "the marker is a dangling link outside") { phone, sentinel throws in
            try replace("\(try group(phone))/device-restoration-marker.txt", withLinkTo: "\(sentinel)/created")
        },
        HostileDeviceCase(name: "the marker is a FIFO") { phone, _ throws in
            let marker = "\(try group(phone))/device-restoration-marker.txt"
            #expect(try Shell.run("rm", ["-f", marker]).status == 0)
            #expect(mkfifo(marker, 0o644) == 0)
        },
        HostileDeviceCase(name: "the group's defaults plist is a link out") { phone, sentinel throws in
            try redirect("\(try group(phone))/Library/Preferences/\(group).plist", into: sentinel, as: "defaults.plist")
        },
        HostileDeviceCase(name: "DeviceLocal is a link out") { phone, sentinel throws in
            try redirect("\(phone.root)/DeviceLocal", into: sentinel, as: "DeviceLocal")
        },
        HostileDeviceCase(name: "the event log is a link out") { phone, sentinel throws in
            try redirect("\(phone.root)/DeviceLocal/events.jsonl", into: sentinel, as: "events.jsonl")
        },
        HostileDeviceCase(name: "the event log is a FIFO") { phone, _ throws in
            let log = "\(phone.root)/DeviceLocal/events.jsonl"
            #expect(try Shell.run("rm", ["-f", log]).status == 0)
            #expect(mkfifo(log, 0o644) == 0)
        },
        HostileDeviceCase(name: "the lock file is a dangling link out") { phone, sentinel throws in
            try replace("\(phone.root)/DeviceLocal/lock", withLinkTo: "\(sentinel)/lock")
        },
        HostileDeviceCase(name: "the notification store is a link out") { phone, sentinel throws in
            try Data().write(to: URL(fileURLWithPath: "\(sentinel)/notifications.plist"))
            try replace("\(phone.root)/DeviceLocal/notifications.plist", withLinkTo: "\(sentinel)/notifications.plist")
        },
        HostileDeviceCase(name: "Library/SpringBoard is a link out") { phone, sentinel throws in
            try redirect("\(phone.root)/Library/SpringBoard", into: sentinel, as: "SpringBoard")
        },
        HostileDeviceCase(name: "IconState.plist is a dangling link out") { phone, sentinel throws in
            try replace("\(phone.root)/Library/SpringBoard/IconState.plist", withLinkTo: "\(sentinel)/IconState.plist")
        },
        HostileDeviceCase(name: "the data container class directory is a link out") { phone, sentinel throws in
            try redirect("\(phone.root)/Containers/Data/Application", into: sentinel, as: "Application")
        },
        HostileDeviceCase(name: "the bundle container class directory is a link out") { phone, sentinel throws in
            try redirect("\(phone.root)/Containers/Bundle/Application", into: sentinel, as: "Bundle")
        },
        HostileDeviceCase(name: "Containers is a link out") { phone, sentinel throws in
            try redirect("\(phone.root)/Containers", into: sentinel, as: "Containers")
        },
        HostileDeviceCase(name: "the app's .app directory is a link out") { phone, sentinel throws in
            let bundle = try phone.containerPath("Containers/Bundle/Application", app)
            try redirect("\(bundle)/News.app", into: sentinel, as: "News.app")
        },
        HostileDeviceCase(name: "a container's metadata is a link out") { phone, sentinel throws in
            let data = try phone.containerPath("Containers/Data/Application", app)
            try redirect("\(data)/.com.apple.mobile_container_manager.metadata.plist", into: sentinel, as: "meta.plist")
        },
        HostileDeviceCase(name: "IconState.plist is a sparse 1 GiB file") { phone, _ throws in
            let path = "\(phone.root)/Library/SpringBoard/IconState.plist"
            #expect(try Shell.run("truncate", ["-s", "1G", path]).status == 0)
        },
        HostileDeviceCase(name: "an Info.plist is a sparse 1 GiB file") { phone, _ throws in
            let bundle = try phone.containerPath("Containers/Bundle/Application", app)
            #expect(try Shell.run("truncate", ["-s", "1G", "\(bundle)/News.app/Info.plist"]).status == 0)
        },
        HostileDeviceCase(name: "the group's defaults plist is a sparse 1 GiB file") { phone, _ throws in
            let path = "\(try group(phone))/Library/Preferences/\(group).plist"
            #expect(try Shell.run("truncate", ["-s", "1G", path]).status == 0)
        },
        HostileDeviceCase(name: "the event log is a sparse 1 GiB file") { phone, _ throws in
            #expect(try Shell.run("truncate", ["-s", "1G", "\(phone.root)/DeviceLocal/events.jsonl"]).status == 0)
        },
    ]

    /// Every device command, each run after the device was made hostile.
    static func commands(_ root: String) -> [[String]] {
        [
            ["status", root], ["status", root, "--json"], ["launch", root, "--app", app],
            ["widget-refresh", root], ["widget", "add", root, "--app", app],
            ["install", root, "--app", "com.example.other", "--group", group],
            ["install", root, "--app", app, "--group", group],
            ["defaults", "write", root, group, "k", "-bool", "true"], ["defaults", "read", root, group],
            ["defaults", "delete", root, group], ["notifications", root], ["events", root],
            ["tap", root, "--notification", "N1-00000000"], ["backup", root, "-o", "\(root)-backup.tar"],
        ]
    }

    @Test(arguments: cases)
    func noDeviceCommandReachesOutsideTheRoot(_ hostile: HostileDeviceCase) throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["widget", "add", phone.root, "--app", Self.app])
            try phone.ok(["launch", phone.root, "--app", Self.app])
            let sentinel = "\(phone.dir)/sentinel"
            try FileManager.default.createDirectory(atPath: sentinel, withIntermediateDirectories: true)
            try hostile.plant(phone, sentinel)
            let before = try TreeSnapshot.take(sentinel)
            for arguments in Self.commands(phone.root) {
                let result = try phone.run(arguments)
                #expect(result.status < 128, "\(hostile.name): devicectl \(arguments) died: \(result.stderr)")
                #expect(!result.stderr.contains("Fatal error"), "\(hostile.name): \(arguments): \(result.stderr)")
                let after = try TreeSnapshot.take(sentinel)
                #expect(
                    after == before,
                    "\(hostile.name): devicectl \(arguments) changed the sentinel: \(snapshotDifference(before, after))")
            }
        }
    }

    /// A marker that cannot be the app's own empty file is refused by launch, naming it; nothing is logged.
    @Test(arguments: cases.filter { $0.name.hasPrefix("the marker") })
    func launchRefusesAMarkerItDidNotMake(_ hostile: HostileDeviceCase) throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let sentinel = "\(phone.dir)/sentinel"
            try FileManager.default.createDirectory(atPath: sentinel, withIntermediateDirectories: true)
            try hostile.plant(phone, sentinel)
            let events = try phone.events().count
            try phone.fails(["launch", phone.root, "--app", Self.app], mentioning: ["device-restoration-marker.txt"])
            #expect(try phone.events().count == events)
        }
    }

    /// A fresh device whose DeviceLocal or lock file leads out of it: restore takes the device lock through the
    /// contained handle, so it refuses the device instead of creating or locking a file outside.
    @Test(arguments: ["DeviceLocal", "DeviceLocal/lock"])
    func restoreNeverLocksThroughALinkOut(_ planted: String) throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let archive = "\(phone.dir)/a.tar"
            try phone.ok(["backup", phone.root, "-o", archive])
            let target = PhoneScratch(dir: "\(phone.dir)/target")
            try target.ok(["init", target.root])
            let sentinel = "\(phone.dir)/sentinel"
            try FileManager.default.createDirectory(atPath: sentinel, withIntermediateDirectories: true)
            if planted == "DeviceLocal" {
                try Self.redirect("\(target.root)/DeviceLocal", into: sentinel, as: "DeviceLocal")
            } else {
                try Self.replace("\(target.root)/\(planted)", withLinkTo: "\(sentinel)/lock")
            }
            let before = try TreeSnapshot.take(sentinel)
            let result = try target.run(["restore", archive, target.root])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(try TreeSnapshot.take(sentinel) == before)
        }
    }

    /// A plist far over its cap is refused before it is read: a clear message naming it, at once.
    @Test func aGiantSparseHomeScreenIsRefusedBeforeItIsRead() throws {
        try PhoneScratch.with { phone in
            let path = "\(phone.root)/Library/SpringBoard/IconState.plist"
            #expect(try Shell.run("truncate", ["-s", "1G", path]).status == 0)
            let result = try Shell.run("/usr/bin/time", ["-f", "%M", DevicectlBinary.path, "status", phone.root])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("\(path): malformed property list (larger than 1024 KiB)"), "\(result.stderr)")
            let peakKiB = Int(result.stderr.split(separator: "\n").last.map(String.init) ?? "") ?? Int.max
            #expect(peakKiB < 64 * 1024, "peak RSS \(peakKiB) KiB")
        }
    }
}
