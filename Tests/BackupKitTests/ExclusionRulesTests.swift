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
        ("Containers/Data/Application/6F1C/Library/Caches/x/y/z", []),
        ("Containers/Data/Application/6F1C/Library/Caches/", []),
        ("Containers", []),
        ("DeviceLocalX", []),
        ("Containers/Data/Application/6F1C/Documents/tmp", []),
        ("Containers/Data/Application/6F1C/SystemData", [.iosSystemData]),
        ("Containers/Data/PluginKitPlugin/6F1C/SystemData", [.iosSystemData]),
        ("Containers/Shared/AppGroup/6F1C/Library/Caches", [.iosCaches]),
        ("Containers/Shared/AppGroup/6F1C/tmp", [.iosTmp]),
        ("Containers/Shared/AppGroup/6F1C/SystemData", [.iosSystemData]),
        ("Containers/Shared/AppGroup/6F1C/Library/SystemData", []),
        ("Containers/Bundle/Application/6F1C/SystemData", []),  // below the skipped bundle container
        ("Containers/Data/Application/6F1C/Documents/SystemData", []),
        ("SystemData", []),
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
        ("Documents/*", "Documents/a", true),
        ("Documents/*", "Documents/a/b", false),  // '*' never crosses '/'
        ("Documents/*", "Documents", false),
        ("Documents/**", "Documents/a/b", true),
        ("Documents/**", "Documents", false),  // a last '**' is below the directory, not it
        ("**/tmp", "tmp", true),
        ("**/tmp", "a/b/tmp", true),
        ("a/**/b", "a/b", true),
        ("a/**/b", "a/x/y/b", true),
        ("a/**/b", "a/x/y/c", false),
        ("./build/", "build", true),
        ("./build/", "src/build", false),  // './' anchors at ROOT
        ("/build", "build", true),
        ("/build", "src/build", false),
        ("/Containers/Data", "Containers/Data", true),
        ("/Containers/Data", "x/Containers/Data", false),
        ("Containers/Data", "Containers/Data", true),
        ("build", "src/build", true),
        ("a/*.tmp", "b/a/x.tmp", false),  // a '/' anchors at ROOT
        ("a/*.tmp", "a/x.tmp", true),
        ("[ab]?", "b1", true),
        ("[!ab]?", "b1", false),
        ("[^ab]?", "c1", true),
        ("[]x]", "]", true),
        ("[a-c]x", "bx", true),
        ("\\*", "*", true),
        ("\\*", "x", false),
        ("\\[x]", "[x]", true),
        ("?", "é", true),  // one character, not one byte
        ("*é", "café", true),
        ("*a*a*a*a*a*a*a*b", String(repeating: "a", count: 4000), false),
        ("**/**/**/**/x", Array(repeating: "d", count: 200).joined(separator: "/"), false),
        ("**/**/**/**/x", Array(repeating: "d", count: 200).joined(separator: "/") + "/x", true),
        ("a/**/b/**", "a/1/b/2/3", true),
        ("a/**/b/**", "a/1/b", false),
    ])
    func patterns(_ glob: String, _ path: String, _ matches: Bool) throws {
        #expect(try ExclusionPattern(glob).matches(path) == matches)
        let rules = ExclusionRules(
            deviceRoot: false, patterns: [try ExclusionPattern("nothing"), try ExclusionPattern(glob)])
        #expect(rules.pathReasons(path) == (matches ? .pattern : []))
    }

    /// Every pattern outside the language is refused with its problem, never compiled into one that
    /// silently matches nothing (or everything).
    @Test(arguments: [
        ("", ExclusionPatternError.Problem.empty), ("/", .empty), ("./", .empty),
        ("[", .unclosedBracket), ("a[b", .unclosedBracket), ("[]", .emptyBracket), ("[!]", .emptyBracket),
        ("[a/b]", .slashInBracket), ("[[:alpha:]]", .characterClass), ("x\\", .trailingBackslash),
        ("a**", .doubleStarInsideComponent), ("**x/y", .doubleStarInsideComponent),
        ("a//b", .emptyComponent), ("a/./b", .dotComponent(".")), ("../x", .dotComponent("..")),
        ("a/..", .dotComponent("..")), (String(repeating: "a", count: 4097), .tooLong(limit: 4096)),
    ])
    func invalidPatternsAreRefused(_ glob: String, _ problem: ExclusionPatternError.Problem) {
        #expect(throws: ExclusionPatternError(problem: problem)) { try ExclusionPattern(glob) }
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
            "apple-exclude-xattr", "ios-mobilebackup-xattr", "apple-cloud-exclude-xattr",
            "apple-unencrypted-exclude-xattr", "xdg-robots-backup", "nodump", "ios-app-bundle",
            "ios-caches", "ios-tmp", "ios-systemdata", "device-local", "cachedir-tag", "pattern", "excluded-ancestor",
        ])
        let set: ExclusionReasons = [.pattern, .nodump, .appleExcludeXattr]
        #expect(set.reasons == [.appleExcludeXattr, .nodump, .pattern])
        #expect(set.text == "apple-exclude-xattr, nodump, pattern")
    }
}
