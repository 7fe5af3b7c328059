// ExclusionRulesTests: the path rules (iOS, --exclude), attribute values and CACHEDIR.TAG signature.
@testable import BackupKit
import Testing

@Suite struct ExclusionRulesTests {
    @Test(arguments: [
        ("DeviceLocal", [ExclusionReason.deviceLocal]),
        ("DeviceLocal/identity.plist", []),  // below a skipped directory: reported as excluded-ancestor
        ("Containers/Bundle/Application/6F1C", [.iosAppBundle]),
        ("Containers/Bundle/Application", []),
        ("Containers/Bundle/Application/6F1C/News.app", []),
        ("Containers/Data/Application/6F1C/Library/Caches", [.iosCaches]),
        ("Containers/Data/Application/6F1C/tmp", [.iosTmp]),
        ("Containers/Data/PluginKitPlugin/6F1C/Library/Caches", [.iosCaches]),
        ("Containers/Data/PluginKitPlugin/6F1C/tmp", [.iosTmp]),
        ("Containers/Data/Application/6F1C/Library", []),
        ("Containers/Data/Application/6F1C/Library/Caches/x", []),
        ("Containers/Data/Application/6F1C/Documents/tmp", []),
        ("Containers/Shared/AppGroup/6F1C/Library/Caches", []),
        ("Containers/Shared/AppGroup/6F1C/tmp", []),
        ("Containers/Data/Application/tmp", []),
        ("Library/Caches", []),
        ("tmp", []),
        ("Documents", []),
    ])
    func iOSRulesOnADeviceRoot(_ path: String, _ expected: [ExclusionReason]) {
        #expect(ExclusionRules(deviceRoot: true).pathReasons(path).reasons == expected)
        #expect(ExclusionRules(deviceRoot: false).pathReasons(path).isEmpty)
    }

    @Test(arguments: [
        ("*.log", "x.log", true),
        ("*.log", "a/b/x.log", true),
        ("*.log", "a/b/x.logs", false),
        ("Documents/*", "Documents/a/b", true),
        ("Documents/*", "Documents", false),
        ("./build/", "build", true),
        ("build", "src/build", true),
        ("a/*.tmp", "b/a/x.tmp", false),
        ("a/*.tmp", "a/x.tmp", true),
        ("[ab]?", "b1", true),
    ])
    func patterns(_ glob: String, _ path: String, _ matches: Bool) {
        #expect(ExclusionPattern(glob).matches(path) == matches)
        let rules = ExclusionRules(deviceRoot: false, patterns: [ExclusionPattern("nothing"), ExclusionPattern(glob)])
        #expect(rules.pathReasons(path) == (matches ? .pattern : []))
    }

    @Test(arguments: [
        ([0x01], true), (Array("1".utf8), true), ([0x31, 0x00], true), (Array("1\n".utf8), true),
        (Array("0".utf8), false), ([0x00], false), (Array("11".utf8), false), ([], false),
    ])
    func mobileBackupValue(_ value: [UInt8], _ excludes: Bool) {
        #expect(value.withUnsafeBytes { ExclusionAttributes.mobileBackupExcludes($0) } == excludes)
    }

    @Test(arguments: [
        ("false", true), ("FALSE", true), ("False\n", true), ("false\0", true),
        ("true", false), ("", false), ("falsey", false), ("0", false), ("no", false),
    ])
    func xdgValue(_ value: String, _ excludes: Bool) {
        #expect(Array(value.utf8).withUnsafeBytes { ExclusionAttributes.xdgExcludes($0) } == excludes)
    }

    @Test func cacheDirectoryTagSignature() {
        let valid = Array("Signature: 8a477f597d28d172789f06886806bc55\n# a cache\n".utf8)
        #expect(valid.withUnsafeBytes { CacheDirectoryTag.isValid(prefix: $0) })
        let short = Array("Signature: 8a477f597d28d172789f06886806bc5".utf8)
        #expect(!short.withUnsafeBytes { CacheDirectoryTag.isValid(prefix: $0) })
        let wrong = Array("Signature: 8a477f597d28d172789f06886806bc56".utf8)
        #expect(!wrong.withUnsafeBytes { CacheDirectoryTag.isValid(prefix: $0) })
    }

    @Test func reasonsKeepTheirDocumentedIdentifiersAndOrder() {
        #expect(ExclusionReason.allCases.map(\.rawValue) == [
            "apple-exclude-xattr", "ios-mobilebackup-xattr", "xdg-robots-backup", "nodump", "ios-app-bundle",
            "ios-caches", "ios-tmp", "device-local", "cachedir-tag", "pattern", "excluded-ancestor",
        ])
        let set: ExclusionReasons = [.pattern, .nodump, .appleExcludeXattr]
        #expect(set.reasons == [.appleExcludeXattr, .nodump, .pattern])
        #expect(set.text == "apple-exclude-xattr, nodump, pattern")
    }
}
