// EngineRulesTests: every exclusion rule of Apple's backup engines, one test each: which attribute excludes from
// which engine, the device's Library/Preferences exception, the container rules, and the manifest's engine.
@testable import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TarKit
import TestSupport
import Testing

@Suite struct EngineRulesTests {
    /// One attribute reason and the engines that honour it (ios-device-layout.md §4.1-4.2).
    static let attributeMatrix: [(ExclusionReason, [AppleBackupEngine])] = [
        (.appleExcludeXattr, AppleBackupEngine.allCases),
        (.mobileBackupXattr, AppleBackupEngine.allCases),
        (.appleCloudExcludeXattr, [.icloud]),
        (.appleUnencryptedExcludeXattr, [.computer]),
        (.xdgRobotsBackup, AppleBackupEngine.allCases),
    ]

    @Test(arguments: attributeMatrix)
    func eachAttributeExcludesFromItsEnginesOnly(_ reason: ExclusionReason, _ engines: [AppleBackupEngine]) {
        for engine in AppleBackupEngine.allCases {
            let rules = ExclusionRules(deviceRoot: true, engine: engine)
            let kept = rules.honoured(ExclusionReasons(reason), ignoringGeneral: false)
            #expect(kept == (engines.contains(engine) ? ExclusionReasons(reason) : []), "\(reason) under \(engine)")
        }
    }

    @Test(arguments: AppleBackupEngine.allCases)
    func theDevicesPreferencesIgnoreTheGeneralAttributeUnderEveryEngine(_ engine: AppleBackupEngine) {
        let rules = ExclusionRules(deviceRoot: true, engine: engine)
        let all: ExclusionReasons = [
            .appleExcludeXattr, .mobileBackupXattr, .appleCloudExcludeXattr, .appleUnencryptedExcludeXattr,
        ]
        // The engine-specific attribute still applies there: only the general one is removed by the agent.
        #expect(rules.honoured(all, ignoringGeneral: true) == all.intersection(engine.engineSpecificReasons))
    }

    @Test(arguments: [
        ("Library/Preferences", true), ("Library/Preferences/com.apple.springboard.plist", true),
        ("Library/Preferences/a/b", true), ("Library/PreferencesX", false), ("Library/Preference", false),
        ("Library", false), ("library/Preferences", false), ("Library/SpringBoard/IconState.plist", false),
        ("Containers/Data/Application/6F1C/Library/Preferences", false),
        ("Containers/Shared/AppGroup/6F1C/Library/Preferences/group.x.plist", false),
    ])
    func onlyTheDevicesOwnPreferencesAreExempt(_ path: String, _ exempt: Bool) {
        #expect(ExclusionRules(deviceRoot: true).ignoresGeneralAttributes(path) == exempt)
        #expect(!ExclusionRules(deviceRoot: false).ignoresGeneralAttributes(path))
    }

    @Test func eachEngineHasItsDocumentedName() {
        #expect(
            AppleBackupEngine.allCases.map(\.rawValue) == ["icloud", "computer", "computer-encrypted", "quick-start"])
        #expect(AppleBackupEngine.default == .icloud)
    }

    /// The walk itself, on a device root: per engine, the dry run skips exactly what the matrix says, the
    /// device's Preferences are kept whatever their general flag, and SystemData of every container is skipped.
    @Test(arguments: AppleBackupEngine.allCases)
    func aDryRunAppliesTheEnginesRules(_ engine: AppleBackupEngine) throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            _ = try Device.initialize(root)
            let tree = TreeBuilder(root: root)
            let files = [
                "Media/general", "Media/cloud", "Media/unencrypted", "Media/legacy", "Library/Preferences/prefs.plist",
                "Library/Preferences/cloud.plist",
            ]
            for file in files { try tree.file(file, "x") }
            try BackupExclusion.add("\(root)/Media/general")
            try BackupExclusion.add("\(root)/Media/cloud", scope: .cloudOnly)
            try BackupExclusion.add("\(root)/Media/unencrypted", scope: .unencryptedOnly)
            try ExtendedAttributes.set(
                BackupExclusionAttribute.legacyMobileBackup, to: [1],
                on: try FileDescriptor.open("\(root)/Media/legacy", flags: FileDescriptor.locateOnly))
            try BackupExclusion.add("\(root)/Library/Preferences/prefs.plist")
            try BackupExclusion.add("\(root)/Library/Preferences/cloud.plist", scope: .cloudOnly)
            let containers = [
                "Containers/Data/Application/A", "Containers/Shared/AppGroup/B", "Containers/Data/PluginKitPlugin/C",
            ]
            for container in containers {
                try tree.file("\(container)/SystemData/com.apple.chrono/placeholder", "p")
            }
            var skipped: [String: [ExclusionReason]] = [:]
            _ = try BackupEngine.dryRun(
                root: root, engine: engine, excluded: { skipped[$0.path] = $0.reasons }, warning: { _ in })
            var expected: [String: [ExclusionReason]] = [
                "DeviceLocal": [.deviceLocal], "Media/general": [.appleExcludeXattr],
                "Media/legacy": [.mobileBackupXattr],
                "Containers/Data/Application/A/SystemData": [.iosSystemData],
                "Containers/Shared/AppGroup/B/SystemData": [.iosSystemData],
                "Containers/Data/PluginKitPlugin/C/SystemData": [.iosSystemData],
            ]
            if engine == .icloud {
                expected["Media/cloud"] = [.appleCloudExcludeXattr]
                expected["Library/Preferences/cloud.plist"] = [.appleCloudExcludeXattr]
            }
            if engine == .computer { expected["Media/unencrypted"] = [.appleUnencryptedExcludeXattr] }
            #expect(skipped == expected, "engine \(engine)")
        }
    }

    /// The backup agent removes the general flag in the device's Preferences and backs the file up: the archived
    /// entry carries every other attribute but not the flag (so a restore does not bring it back).
    @Test func aFlaggedPreferencesFileIsArchivedWithoutItsFlag() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            _ = try Device.initialize(root)
            let path = try TreeBuilder(root: root).file("Library/Preferences/com.apple.springboard.plist", "prefs")
            try BackupExclusion.add(path)
            let file = try FileDescriptor.open(path, flags: FileDescriptor.locateOnly)
            try ExtendedAttributes.set(BackupExclusionAttribute.legacyMobileBackup, to: [1], on: file)
            try ExtendedAttributes.set("user.keep", to: Array("me".utf8), on: file)
            let archive = "\(dir)/a.tar"
            _ = try BackupEngine.backup(
                BackupRequest(
                    root: root, output: .file(archive), created: Date(timeIntervalSince1970: 1_800_000_000),
                    tool: "devicectl test"),
                progress: nil, warning: { _ in })
            let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            let holds = { (text: String) in bytes.range(of: Data(text.utf8)) != nil }
            #expect(holds("Library/Preferences/com.apple.springboard.plist"))
            #expect(holds("SCHILY.xattr.user.keep"))
            #expect(!holds("com_apple_backup_excludeItem"), "the flag was archived")
            #expect(!holds("com.apple.MobileBackup"), "the legacy flag was archived")
            // The source is never changed by a backup: the flag is still on the device.
            #expect(try ExtendedAttributes.value(BackupExclusionAttribute.apple, of: file) != nil)
        }
    }

    /// An archive made before engines (its header has no `engine`, like every archive of fd5290d) reads as
    /// icloud; one that names an engine reads as that engine, in list, verify and restore alike.
    @Test func theManifestsEngineReadsAsRecordedAndAsICloudWhenAbsent() throws {
        try withTemporaryDirectory { base in
            let old = TarBuilder.archive([.directory("Documents")])
            try Data(old).write(to: URL(fileURLWithPath: base + "/old.tar"))
            let summary = try ArchiveListing.list(archive: base + "/old.tar") { _ in }
            #expect(summary.header?.engine == nil)
            #expect(summary.header?.appliedEngine == .icloud)
            #expect(try ArchiveVerification.verify(archive: base + "/old.tar").isValid)
            for engine in AppleBackupEngine.allCases {
                var header = HostileHeaderTests.validHeader()
                header["engine"] = engine.rawValue
                try Data(HostileHeaderTests.archive(header: header)).write(to: URL(fileURLWithPath: base + "/e.tar"))
                let listed = try ArchiveListing.list(archive: base + "/e.tar") { _ in }
                #expect(listed.header?.appliedEngine == engine)
                #expect(try ArchiveVerification.verify(archive: base + "/e.tar").isValid)
            }
            let scratch = try RestoreScratch(base: base + "/r")
            try scratch.write(old)
            #expect(try scratch.restore().verified)
        }
    }

    @Test func aBackupRecordsItsEngineInTheHeader() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            try tree.file("a.txt", "alpha")
            for engine in AppleBackupEngine.allCases {
                let archive = "\(dir)/\(engine).tar"
                _ = try BackupEngine.backup(
                    BackupRequest(
                        root: tree.root, output: .file(archive), created: Date(timeIntervalSince1970: 1_800_000_000),
                        tool: "devicectl test", engine: engine),
                    progress: nil, warning: { _ in })
                let header = try #require(try TarTool.manifest(archive).first)
                #expect(header["engine"] as? String == engine.rawValue)
            }
        }
    }

    /// Restore side ("attribute set locally", MBRestorePolicy): nothing is restored at or below a path the target
    /// device flags, whichever flag (Apple's, the legacy one) and whatever the member (file, directory, symlink, a
    /// hard link from outside to a file inside); the device keeps its directory and its flag; the rest restores,
    /// every skipped file still checked against the manifest; the device's own Library/Preferences is not judged.
    @Test func aRestoreDoesNotRestoreOverAFlaggedPathOfTheTargetDevice() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let tree = TreeBuilder(root: scratch.root)
            let media = try tree.directory("Media")
            let legacy = try tree.directory("Library/Legacy")
            let preferences = try tree.directory("Library/Preferences")
            try BackupExclusion.add(media)
            try ExtendedAttributes.set(
                BackupExclusionAttribute.legacyMobileBackup, to: [1],
                on: try FileDescriptor.open(legacy, flags: FileDescriptor.locateOnly))
            try BackupExclusion.add(preferences)
            let members: [TestMember] = [
                .directory("Documents"), .file("Documents/kept.txt", Array("kept".utf8)),
                .directory("Library"), .directory("Library/Legacy"), .file("Library/Legacy/old.db", Array("old".utf8)),
                .directory("Library/Preferences"), .file("Library/Preferences/p.plist", Array("prefs".utf8)),
                .directory("Media", mode: 0o700), .file("Media/photo.jpg", Array("jpeg".utf8)),
                .directory("Media/Albums"), .symlink("Media/latest", "photo.jpg"),
                .hardlink("Documents/photo-link", "Media/photo.jpg"),
            ]
            try scratch.write(TarBuilder.archive(members))
            let report = try scratch.restore()
            #expect(report.verified)
            #expect(report.skipped == [
                RestoreSkippedPath(path: "Library/Legacy", reason: .mobileBackupXattr, entries: 2),
                RestoreSkippedPath(path: "Media", reason: .appleExcludeXattr, entries: 5),
            ])
            let names = try FileManager.default.subpathsOfDirectory(atPath: scratch.root)
            #expect(names.contains("Documents/kept.txt") && names.contains("Library/Preferences/p.plist"), "\(names)")
            #expect(!names.contains { $0.hasPrefix("Media/") || $0.hasPrefix("Library/Legacy/") }, "\(names)")
            #expect(!names.contains("Documents/photo-link"), "\(names)")
            #expect(try FileStatus.of(media).kind == .directory)
            #expect(try FileStatus.of(legacy).kind == .directory)
            let kept = try FileDescriptor.open(media, flags: FileDescriptor.locateOnly)
            #expect(try ExtendedAttributes.value(BackupExclusionAttribute.apple, of: kept) != nil)
            let legacyKept = try FileDescriptor.open(legacy, flags: FileDescriptor.locateOnly)
            #expect(try ExtendedAttributes.value(BackupExclusionAttribute.legacyMobileBackup, of: legacyKept) == [1])
        }
    }

    /// A skipped member is still checked: a file below a flagged path whose data does not match the manifest
    /// fails the restore, and the device is left exactly as it was (all or nothing).
    @Test func aSkippedFileStillFailsItsDigestAndChangesNothing() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try BackupExclusion.add(try TreeBuilder(root: scratch.root).directory("Media"))
            var builder = TarBuilder()
            builder.add(.directory("Documents"))
            builder.add(.file("Documents/kept.txt", Array("kept".utf8)))
            builder.add(.directory("Media"))
            builder.add(.file("Media/photo.jpg", Array("jpeg".utf8)))
            builder.manifest()
            builder.end()
            var bytes = builder.bytes
            let data = Array("jpeg".utf8)
            let at = try #require(bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(data) })
            bytes[at] = UInt8(ascii: "J")
            try scratch.write(bytes)
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.self) { try scratch.restore() }
            #expect(try scratch.snapshot() == before)
        }
    }

    /// The scan of the target is bounded whatever the device holds: past its entry or path-byte limit it fails
    /// (naming the device) instead of growing; a flag under the device's Preferences or in DeviceLocal is not read
    /// as one, and a flagged directory's subtree is not walked.
    @Test func theTargetScanIsBoundedAndReadsOnlyTheGeneralFlagsThatCount() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let tree = TreeBuilder(root: scratch.root)
            for index in 0..<12 { _ = try tree.directory("Media/d\(index)") }
            try BackupExclusion.add(try tree.directory("Library/Preferences/Sub"))
            try BackupExclusion.add(try tree.directory("Media/d3"))
            try BackupExclusion.add(try tree.directory("Media/d3/inner"))
            try BackupExclusion.add(try tree.directory("Media/d5"), scope: .cloudOnly)
            try BackupExclusion.add("\(scratch.root)/DeviceLocal")
            let root = try ContainedRoot(opening: scratch.root)
            let found = try TargetExclusions.scan(root)
            #expect(found.flagged.map(\.text) == ["Media/d3"])
            #expect(found.covering(Array("Media/d3/inner/x".utf8)) == 0)
            #expect(found.covering(Array("Media/d30".utf8)) == nil)
            #expect(try found.attributes(of: found.flagged[0]).map(\.name) == [BackupExclusionAttribute.apple])
            #expect(throws: RestoreError.self) { try TargetExclusions.scan(root, entryLimit: 10) }
            #expect(throws: RestoreError.self) { try TargetExclusions.scan(root, pathByteLimit: 64) }
        }
    }
}
