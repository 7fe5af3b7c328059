// ExecutableEntitlementsTests: a Simulator app whose App Groups live only in its Mach-O executable (the
// __TEXT,__entitlements section, or the code signature's entitlements blob, thin or fat) is adopted with them;
// a hostile executable (counts, offsets and sizes that lie, a non-plist, a symlink, a huge file) is refused
// naming it, with nothing written.
import DeviceKit
import Foundation
import Glibc
import Testing
import TestSupport

@Suite struct ExecutableEntitlementsTests {
    typealias Build = MachOBuilder
    static let group = "group.com.example.news"

    /// A Simulator data/ directory at `data` holding News (bundle and data containers), whose Info.plist names
    /// `News` as its executable; returns the `.app` path. `xcent` adds an `archived-expanded-entitlements.xcent`.
    @discardableResult
    static func makeData(_ data: String, executable: [UInt8]?, xcent: [String]? = nil) throws -> String {
        func write(_ value: Any, _ path: String, xml: Bool = false) throws {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try PropertyListSerialization.data(fromPropertyList: value, format: xml ? .xml : .binary, options: 0)
                .write(to: URL(fileURLWithPath: path))
        }
        func container(_ kind: String, _ uuid: String, _ contentClass: Int) throws -> String {
            let path = "\(data)/Containers/\(kind)/\(uuid)"
            try write(
                ["MCMMetadataIdentifier": "com.example.news", "MCMMetadataUUID": uuid,
                    "MCMMetadataContentClass": contentClass, "MCMMetadataVersion": 6, "MCMMetadataSchemaVersion": 1,
                    "MCMMetadataInfo": [String: Any]()],
                "\(path)/.com.apple.mobile_container_manager.metadata.plist")
            return path
        }
        let app = try container("Bundle/Application", "B0000000-0000-4000-8000-000000000001", 1) + "/News.app"
        _ = try container("Data/Application", "D0000000-0000-4000-8000-000000000002", 2)
        try write(
            ["CFBundleIdentifier": "com.example.news", "CFBundleName": "News", "CFBundleExecutable": "News",
                "CFBundlePackageType": "APPL"], "\(app)/Info.plist")
        if let xcent {
            try write(["com.apple.security.application-groups": xcent], "\(app)/archived-expanded-entitlements.xcent")
        }
        if let executable { try Data(executable).write(to: URL(fileURLWithPath: "\(app)/News")) }
        return app
    }

    /// The groups adopting a data directory holding `executable` finds.
    static func adoptedGroups(_ executable: [UInt8]?, xcent: [String]? = nil) throws -> [String] {
        try withTemporaryDirectory { dir in
            try makeData("\(dir)/data", executable: executable, xcent: xcent)
            let (_, apps) = try Device.adopt("\(dir)/data", now: Date(timeIntervalSince1970: 1_796_000_000))
            #expect(FileManager.default.fileExists(atPath: "\(dir)/data/DeviceLocal"))
            return apps.first?.groups ?? ["(no app)"]
        }
    }

    static func section(_ groups: [String]) -> [UInt8] { Build.thin(section: Build.entitlements(groups: groups)) }

    @Test func aThinExecutablesEntitlementsSectionGivesItsGroups() throws {
        #expect(try Self.adoptedGroups(Self.section([Self.group])) == [Self.group])
    }

    @Test func aFatExecutableIsReadFromItsArm64Slice() throws {
        let x86 = Build.thin(cpu: Build.x86_64, section: Build.entitlements(groups: ["group.x86"]))
        let arm = Build.thin(section: Build.entitlements(groups: ["group.arm"]))
        #expect(try Self.adoptedGroups(Build.fat([(Build.x86_64, x86), (Build.arm64, arm)])) == ["group.arm"])
        #expect(try Self.adoptedGroups(Build.fat([(Build.x86_64, x86)], wide: true)) == ["group.x86"])
    }

    @Test func aSignedExecutablesEntitlementsBlobGivesItsGroups() throws {
        let signed = Build.thin(signature: Build.superBlob(entitlements: Build.entitlements(groups: [Self.group])))
        #expect(try Self.adoptedGroups(signed) == [Self.group])
        let both = Build.thin(
            section: Build.entitlements(groups: ["group.section"]),
            signature: Build.superBlob(entitlements: Build.entitlements(groups: ["group.signature"])))
        #expect(try Self.adoptedGroups(both) == ["group.section"], "the section wins over the signature")
    }

    @Test func anExecutableWithoutEntitlementsOrNoExecutableMeansNoGroups() throws {
        #expect(try Self.adoptedGroups(Build.thin()) == [])
        #expect(try Self.adoptedGroups(nil) == [])
        #expect(try Self.adoptedGroups(Build.fat([(0x0000_000C, Self.section([Self.group]))])) == [], "armv7 only")
    }

    @Test func theXcentWinsOverTheExecutable() throws {
        #expect(try Self.adoptedGroups(Self.section(["group.executable"]), xcent: ["group.xcent"]) == ["group.xcent"])
    }

    struct Hostile: CustomStringConvertible, Sendable {
        let description: String
        let mentions: String
        let bytes: @Sendable () -> [UInt8]
    }

    /// A thin file with `section` (groups) and the field at `offset` replaced by `value` (32 or 64 bits).
    static func corrupt(_ base: [UInt8], at offset: Int, _ value: UInt64, wide: Bool = false, big: Bool = false)
        -> [UInt8]
    {
        var bytes = base
        switch (wide, big) {
        case (false, false): Build.put32(UInt32(truncatingIfNeeded: value), at: offset, in: &bytes)
        case (true, false): Build.put64(value, at: offset, in: &bytes)
        case (false, true): Build.putBig32(UInt32(truncatingIfNeeded: value), at: offset, in: &bytes)
        case (true, true): Build.putBig64(value, at: offset, in: &bytes)
        }
        return bytes
    }

    static let withSection = section([group])
    static let signed = Build.thin(signature: Build.superBlob(entitlements: Build.entitlements(groups: [group])))
    /// Where the SuperBlob starts in `signed`: after the header, the segment and the signature command.
    static let signature = 32 + 72 + 16
    static let fat = Build.fat([(Build.arm64, withSection)])
    static let fat64 = Build.fat([(Build.arm64, withSection)], wide: true)

    static let cases: [Hostile] = [
        Hostile(description: "ncmds too large", mentions: "load commands cannot fit") {
            corrupt(withSection, at: Build.Offset.commandCount, 100_000)
        },
        Hostile(description: "a load command past the end", mentions: "lies past the end of the load commands") {
            corrupt(withSection, at: Build.Offset.segmentCommandSize, 4096)
        },
        Hostile(description: "sizeofcmds past the end of the file", mentions: "the load commands") {
            corrupt(withSection, at: Build.Offset.commandsSize, 65536)
        },
        Hostile(description: "nsects larger than the command", mentions: "sections that do not fit") {
            corrupt(withSection, at: Build.Offset.sectionCount, 1000)
        },
        Hostile(description: "section offset+size past the end", mentions: "__entitlements section") {
            corrupt(withSection, at: Build.Offset.sectionOffset, 0xFFFF_FFF0)
        },
        Hostile(description: "a huge declared section size", mentions: "more than 1 MiB") {
            corrupt(withSection, at: Build.Offset.sectionSize, 1 << 40, wide: true)
        },
        Hostile(description: "a section size overflowing", mentions: "more than 1 MiB") {
            corrupt(withSection, at: Build.Offset.sectionSize, UInt64.max, wide: true)
        },
        Hostile(description: "a fat arch past the end", mentions: "fat architecture 0") {
            corrupt(fat, at: 8 + 12, 0x7FFF_FFFF, big: true)
        },
        Hostile(description: "a fat64 arch offset overflowing", mentions: "fat architecture 0") {
            corrupt(fat64, at: 8 + 8, UInt64.max - 4, wide: true, big: true)
        },
        Hostile(description: "a fat header listing 100000 arches", mentions: "100000 architectures") {
            corrupt(fat, at: 4, 100_000, big: true)
        },
        Hostile(description: "a fat slice that is not Mach-O", mentions: "slice that is not") {
            corrupt(fat, at: 0x4000, 0, big: true)
        },
        Hostile(description: "the code signature past the end", mentions: "the code signature") {
            corrupt(signed, at: Build.Offset.signatureOffset(withSection: false), 0xFFFF_FFF0)
        },
        Hostile(description: "a SuperBlob length lying", mentions: "the code signature's SuperBlob") {
            corrupt(signed, at: signature + 4, 0x7FFF_FFFF, big: true)
        },
        Hostile(description: "a SuperBlob indexing 100000 blobs", mentions: "100000 blobs") {
            corrupt(signed, at: signature + 8, 100_000, big: true)
        },
        Hostile(description: "an entitlements blob length lying", mentions: "the entitlements blob") {
            corrupt(signed, at: signature + 28 + 8 + 4, 0x1000, big: true)
        },
        Hostile(description: "an entitlements blob declaring 2 GiB", mentions: "more than 1 MiB") {
            corrupt(signed, at: signature + 28 + 8 + 4, 0x8000_0000, big: true)
        },
        Hostile(description: "a non-plist section", mentions: "not a property list") {
            Build.thin(section: Array("<?xml this is not a plist".utf8))
        },
        Hostile(description: "entitlements not a dictionary", mentions: "not a dictionary") {
            Build.thin(section: Array(try! PropertyListSerialization.data(
                fromPropertyList: ["a"], format: .xml, options: 0)))
        },
        Hostile(description: "a group id climbing out", mentions: "com.apple.security.application-groups") {
            section(["../escape"])
        },
        Hostile(description: "groups not an array", mentions: "com.apple.security.application-groups") {
            Build.thin(section: Array(try! PropertyListSerialization.data(
                fromPropertyList: ["com.apple.security.application-groups": "g"], format: .xml, options: 0)))
        },
        Hostile(description: "an ELF file", mentions: "not a Mach-O file") { [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] },
        Hostile(description: "a 32-bit Mach-O file", mentions: "32-bit") {
            [0xCE, 0xFA, 0xED, 0xFE] + [UInt8](repeating: 0, count: 28)
        },
        Hostile(description: "a truncated header", mentions: "past the end") { [0xCF, 0xFA] },
        Hostile(description: "a truncated Mach-O header", mentions: "the Mach-O header") {
            Array(withSection[0..<20])
        },
    ]

    /// Adopting `data` fails naming `name` in the bundle and `mentions`, and writes nothing.
    static func expectRefused(_ data: String, name: String = "News.app/News", mentions: String) {
        let before = try? FileManager.default.subpathsOfDirectory(atPath: data).sorted()
        do {
            _ = try Device.adopt(data, now: Date(timeIntervalSince1970: 1_796_000_000))
            Issue.record("adopted a hostile executable")
        } catch {
            #expect("\(error)".contains(name) && "\(error)".contains(mentions), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(data)/DeviceLocal"))
        #expect((try? FileManager.default.subpathsOfDirectory(atPath: data).sorted()) == before, "nothing written")
    }

    @Test(arguments: cases)
    func aHostileExecutableIsRefusedNamingIt(_ hostile: Hostile) throws {
        try withTemporaryDirectory { dir in
            try Self.makeData("\(dir)/data", executable: hostile.bytes())
            Self.expectRefused("\(dir)/data", mentions: hostile.mentions)
        }
    }

    @Test func aSymlinkedExecutableIsRefusedAndNotFollowed() throws {
        try withTemporaryDirectory { dir in
            let app = try Self.makeData("\(dir)/data", executable: nil)
            try Data(Self.withSection).write(to: URL(fileURLWithPath: "\(dir)/outside"))
            try FileManager.default.createSymbolicLink(atPath: "\(app)/News", withDestinationPath: "\(dir)/outside")
            Self.expectRefused("\(dir)/data", mentions: "symbolic link")
        }
    }

    @Test func aFIFOOrDirectoryExecutableIsRefusedWithoutBlocking() throws {
        try withTemporaryDirectory { dir in
            let app = try Self.makeData("\(dir)/data", executable: nil)
            #expect(mkfifo("\(app)/News", 0o644) == 0)
            Self.expectRefused("\(dir)/data", mentions: "not a regular file")
            try FileManager.default.removeItem(atPath: "\(app)/News")
            try FileManager.default.createDirectory(atPath: "\(app)/News", withIntermediateDirectories: false)
            Self.expectRefused("\(dir)/data", mentions: "not a regular file")
        }
    }

    @Test func anExecutableOver64MiBIsRefusedBeforeReading() throws {
        try withTemporaryDirectory { dir in
            let app = try Self.makeData("\(dir)/data", executable: Self.withSection)
            #expect(truncate("\(app)/News", off_t(64 << 20) + 1) == 0, "a sparse file: nothing of it to read")
            Self.expectRefused("\(dir)/data", mentions: "more than the 64 MiB")
        }
    }

    @Test func anExecutableNameThatIsNotOneFileNameIsAMalformedInfoPlist() throws {
        for name in ["../News", "", "..", "a/b"] {
            try withTemporaryDirectory { dir in
                let app = try Self.makeData("\(dir)/data", executable: Self.withSection)
                try PropertyListSerialization.data(
                    fromPropertyList: ["CFBundleIdentifier": "com.example.news", "CFBundleExecutable": name],
                    format: .binary, options: 0
                ).write(to: URL(fileURLWithPath: "\(app)/Info.plist"))
                Self.expectRefused("\(dir)/data", name: "News.app/Info.plist", mentions: "CFBundleExecutable")
            }
        }
    }
}
