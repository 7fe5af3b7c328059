// ConventionsParseTests: the command-line conventions of issue 14, parsed without running a command:
// option values that look like options, suggestions, groups, bare devicectl, archive suffixes against
// --compression, dry-run validation, list's escaping of names and the progress line's width.
import BackupKit
import TarKit
import Testing

@testable import DevicectlCLI

@Suite struct ConventionsParseTests {
    static let defaultsWrite = DefaultsCommand.Write.spec

    static func usageError(_ body: () throws -> Void) -> UsageError? {
        CommandParseTests.usageError(body)
    }

    // MARK: - A value option never takes an option as its value

    @Test(arguments: [
        ["R", "-o", "--json"], ["R", "--output", "--json"], ["R", "-o", "-h"], ["R", "--exclude", "--dry-run"],
        ["R", "-o", "--"], ["R", "--compression", "-o", "x.tar"], ["R", "--level", "--json"],
    ])
    func anOptionIsNotAValue(_ words: [String]) throws {
        let error = try #require(Self.usageError { _ = try ParsedArguments.parse(words, spec: BackupCommand.spec) })
        #expect(error.message.contains("needs a value"), "\(error.message)")
        #expect(error.message.contains("="), "the message says how to give it anyway: \(error.message)")
    }

    @Test(arguments: [
        (["R", "-o=--json"], "--json"), (["R", "--output=--json"], "--json"), (["R", "-o", "./--json"], "./--json"),
        (["R", "-o", "-"], "-"), (["R", "-o=x.tar"], "x.tar"), (["R", "-o", "x=y.tar"], "x=y.tar"),
    ])
    func anOptionLikeValueGivenWithEquals(_ words: [String], _ value: String) throws {
        let parsed = try ParsedArguments.parse(words, spec: BackupCommand.spec)
        #expect(parsed.value("--output") == value)
        #expect(!parsed.flag("--json"))
    }

    @Test(arguments: [
        (["R", "com.a", "k", "-int", "-5"], "-int", "-5"), (["R", "com.a", "k", "-float", "-1.5"], "-float", "-1.5"),
        (["R", "com.a", "k", "-string=-x"], "-string", "-x"), (["R", "com.a", "k", "-int", "-.5"], "-int", "-.5"),
        (["R", "com.a", "k", "-bool=yes"], "-bool", "yes"),
    ])
    func negativeNumbersAndEqualsForSingleDashOptions(_ words: [String], _ key: String, _ value: String) throws {
        #expect(try ParsedArguments.parse(words, spec: Self.defaultsWrite).value(key) == value)
    }

    @Test func aStringStartingWithADashNeedsEquals() {
        let error = Self.usageError {
            _ = try ParsedArguments.parse(["R", "com.a", "k", "-string", "-x"], spec: Self.defaultsWrite)
        }
        #expect(error?.message.contains("write -string=-x") == true, "\(String(describing: error))")
    }

    // MARK: - Suggestions

    static let backupNames = BackupCommand.spec.options.flatMap(\.names)

    @Test(arguments: [
        ("-y", backupNames, nil), ("-x", backupNames, nil), ("--v", backupNames, "-v"),
        ("--ouptut", backupNames, "--output"), ("--jsn", backupNames, "--json"), ("-json", backupNames, "--json"),
        ("--o", backupNames, "-o"), ("--levle", backupNames, "--level"), ("--dry", backupNames, nil),
        ("--compresion", backupNames, "--compression"), ("--progres", backupNames, "--progress"),
        ("--verison", Devicectl.globalOptions, "--version"), ("--hlep", Devicectl.globalOptions, "--help"),
        ("-v", Devicectl.globalOptions, nil), ("--int", defaultsWrite.options.flatMap(\.names), "-int"),
        ("-strng", defaultsWrite.options.flatMap(\.names), "-string"),
        ("-i", defaultsWrite.options.flatMap(\.names), nil),
    ] as [(String, [String], String?)])
    func optionSuggestions(_ word: String, _ names: [String], _ expected: String?) {
        #expect(Suggestion.option(for: word, in: names) == expected)
    }

    @Test func anUnknownShortOptionSuggestsNothingUnrelated() {
        let error = Self.usageError { _ = try ParsedArguments.parse(["R", "-x"], spec: BackupCommand.spec) }
        #expect(error?.message == "unknown option '-x' for 'backup'")
    }

    // MARK: - Commands, groups, bare devicectl

    @Test(arguments: [
        ([], 64), (["defaults"], 64), (["exclude"], 64), (["widget"], 64),
        (["defaults", "--help"], 0), (["exclude", "-h"], 0), (["widget", "--help"], 0), (["help", "defaults"], 0),
        (["help", "widget"], 0), (["help", "exclude", "add"], 0), (["help"], 0), (["--version"], 0),
    ] as [([String], Int32)])
    func selectionsThatPrint(_ words: [String], _ status: Int32) throws {
        guard case .done(let done) = try Devicectl.select(words) else {
            Issue.record("\(words) selected a command")
            return
        }
        #expect(done == status)
    }

    @Test(arguments: [
        (["--verison"], "unknown option '--verison'; did you mean '--version'?"),
        (["-v"], "unknown option '-v' (a command's options go after the command)"),
        (["defaults", "raed"], "unknown command 'defaults raed'; did you mean 'defaults read'?"),
        (["help", "nope"], "unknown command 'nope'"), (["help", "defaults", "nope"], "unknown command 'defaults nope'"),
    ])
    func selectionsThatAreUsageErrors(_ words: [String], _ message: String) {
        let error = Self.usageError { _ = try Devicectl.select(words) }
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test func aGroupsHelpListsEverySubcommand() throws {
        let group = try #require(CommandGroup(named: "defaults", in: Devicectl.commands.map(\.spec)))
        for name in ["defaults read", "defaults write", "defaults delete"] { #expect(group.help.contains(name)) }
        #expect(CommandGroup(named: "backup", in: Devicectl.commands.map(\.spec)) == nil)
    }

    // MARK: - The archive's suffix and --compression

    @Test(arguments: [
        ("x.tar", nil, Compression.none), ("x.TAR.GZ", nil, .gzip), ("x.tgz", nil, .gzip), ("x.tar.zst", nil, .zstd),
        ("x.tar.xz", nil, .xz), ("x.gz", nil, .gzip), ("backup", nil, .none), ("backup", .xz, .xz),
        ("/dev/null", .gzip, .gzip), ("phone.2026-12-01", nil, .none), ("x.tar.zst", .zstd, .zstd),
        ("dir.tar.gz/backup", .zstd, .zstd), (".tar", nil, .none), ("x.tar", .xz, .xz), (".tgz", nil, .none),
    ] as [(String, Compression?, Compression)])
    func suffixesThatAgree(_ name: String, _ requested: Compression?, _ expected: Compression) throws {
        #expect(try ArchiveName.compression(for: name, requested: requested) == expected)
    }

    @Test(arguments: [
        ("x.tar.bz2", nil, "cannot write a '.bz2' archive"), ("x.zip", nil, "cannot write a '.zip' archive"),
        ("x.tbz2", .gzip, "cannot write a '.tbz2'"), ("x.tar.lz4", nil, "'.lz4'"), ("x.7z", nil, "'.7z'"),
        ("x.tar.Z", nil, "'.Z'"),
        ("x.tar.zst", .gzip, "the suffix '.tar.zst' means zstd compression, but --compression is gzip"),
        ("x.tgz", Compression.none, "means gzip compression"),
    ] as [(String, Compression?, String)])
    func suffixesThatAreRefused(_ name: String, _ requested: Compression?, _ message: String) {
        let error = Self.usageError { _ = try ArchiveName.compression(for: name, requested: requested) }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.message.contains(name) == true)
    }

    @Test(arguments: [
        ["R", "--dry-run", "--compression", "foo"], ["R", "--dry-run", "--compression", "gzip", "--level", "99"],
        ["R", "--dry-run", "--level", "3"], ["R", "--dry-run", "-o", "x.tar.bz2"],
        ["R", "--dry-run", "-o", "x.tar.zst", "--compression", "gzip"], ["R", "--dry-run", "--level", "x"],
    ])
    func aDryRunChecksCompressionAsABackupDoes(_ words: [String]) throws {
        let parsed = try ParsedArguments.parse(words, spec: BackupCommand.spec)
        #expect(throws: UsageError.self) {
            _ = try BackupCommand.compressionAndLevel(parsed, archive: parsed.value("--output"))
        }
    }

    // MARK: - list prints names as GNU tar does

    @Test(arguments: [
        ("plain/name.txt", "plain/name.txt"), ("a\nb", "a\\nb"), ("tab\there", "tab\\there"),
        ("back\\slash", "back\\\\slash"),
        ("\u{1B}[31mred", "\\033[31mred"), ("cr\r", "cr\\r"), ("bell\u{07}", "bell\\a"), ("del\u{7F}", "del\\177"),
        ("c1\u{85}", "c1\\302\\205"), ("rtl\u{202E}txt", "rtl\\342\\200\\256txt"),
        ("ünïcödé-名前", "ünïcödé-名前"),
        ("nul-free\u{01}", "nul-free\\001"),
    ])
    func namesAreEscaped(_ name: String, _ shown: String) {
        #expect(ArchiveFormat.name(name) == shown)
        #expect(ArchiveFormat.name(bytes: Array(name.utf8)) == shown)
    }

    /// Modes as `tar -tvf` shows them (GNU tar 1.34, checked by hand): s/S, t/T over the x bits.
    @Test(arguments: [
        (0o644, "-rw-r--r--"), (0o4755, "-rwsr-xr-x"), (0o2755, "-rwxr-sr-x"), (0o1777, "-rwxrwxrwt"),
        (0o4644, "-rwSr--r--"), (0o2644, "-rw-r-Sr--"), (0o1776, "-rwxrwxrwT"), (0o7000, "---S--S--T"),
        (0o7777, "-rwsrwsrwt"), (0, "----------"),
    ])
    func modesAreShownAsTarShowsThem(_ permissions: UInt32, _ shown: String) {
        #expect(ArchiveFormat.mode(.regular, permissions) == shown)
        #expect(ArchiveFormat.mode(.directory, permissions).dropFirst() == shown.dropFirst())
    }

    /// Member lines as list prints them: owner left-aligned in 9 columns and size right-aligned in 12 (both
    /// wider when they must be), negative and 64-bit values in full, the link words, escaped names and targets.
    @Test func memberLinesKeepTheirColumns() {
        func line(
            _ kind: ArchiveReader.Kind, _ owner: (Int64, Int64), _ size: some BinaryInteger, _ seconds: Int64,
            _ nanoseconds: Int32, _ name: String, _ link: String? = nil
        ) -> String {
            var out = Array("> ".utf8)
            ArchiveFormat.appendLine(
                kind, permissions: 0o4755, owner: owner, size: size, mtime: (seconds, nanoseconds),
                name: Array(name.utf8), link: link.map { Array($0.utf8) }, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(line(.regular, (0, 0), 1234, 1_700_000_000, 0, "a") ==
            "> -rwsr-xr-x 0/0               1234 2023-11-14T22:13:20Z  a")
        #expect(line(.regular, (501, 20), Int64(-7), -1, 5, "a") ==
            "> -rwsr-xr-x 501/20              -7 1969-12-31T23:59:59.000000005Z  a")
        #expect(line(.directory, (-5, 123_456_789), 0, 0, 0, "d/") ==
            "> drwsr-xr-x -5/123456789            0 1970-01-01T00:00:00Z  d/")
        #expect(line(.regular, (Int64.min, 0), UInt64.max, .max, 0, "big") ==
            "> -rwsr-xr-x -9223372036854775808/0 18446744073709551615 9223372036854775807  big")
        #expect(line(.symlink, (0, 0), 0, 0, 0, "s\u{1B}[1m", "t\nx") ==
            "> lrwsr-xr-x 0/0                  0 1970-01-01T00:00:00Z  s\\033[1m -> t\\nx")
        #expect(line(.hardLink, (0, 0), 0, 0, 0, "h", "名前") ==
            "> hrwsr-xr-x 0/0                  0 1970-01-01T00:00:00Z  h link to 名前")
        var invalid = Array("> ".utf8)
        ArchiveFormat.appendLine(
            .regular, permissions: 0o644, owner: (0, 0), size: 0, mtime: (0, 0), name: [0x62, 0xFF], link: nil,
            to: &invalid)
        #expect(
            String(decoding: invalid, as: UTF8.self) == "> -rw-r--r-- 0/0                  0 1970-01-01T00:00:00Z  b\\377")
    }

    // MARK: - The progress line fits the terminal

    @Test(arguments: [1, 2, 10, 20, 30, 40, 50, 60, 80, 120])
    func theProgressLineFitsItsWidth(_ width: Int) {
        for fraction in [nil, 0.4] {
            let line = ProgressBar.line(
                label: "backing up", files: 1_234_567, bytes: 9_876_543_210, seconds: 3_723, fraction: fraction,
                width: width)
            #expect(line.count <= width - 1, "\(width): '\(line)'")
        }
        let wide = ProgressBar.line(label: "backing up", files: 1, bytes: 1, seconds: 1, fraction: 0.5, width: 200)
        #expect(wide.hasPrefix("backing up  ["))
    }

    /// With the fraction done known: a bar, the percentage, and the time left from the rate so far (not before 1%
    /// is done; never once all is done).
    @Test func theProgressLineShowsPercentAndTimeLeft() {
        let quarter = ProgressBar.line(
            label: "restoring", files: 10, bytes: 1000, seconds: 30, fraction: 0.25, width: 200)
        #expect(quarter.contains("[######------------------]  25%"), "\(quarter)")
        #expect(quarter.hasSuffix("ETA 1:30"), "30 s for a quarter: 90 s left: \(quarter)")
        let early = ProgressBar.line(label: "restoring", files: 1, bytes: 1, seconds: 2, fraction: 0.001, width: 200)
        #expect(early.hasSuffix("0:02") && !early.contains("ETA"), "\(early)")
        let done = ProgressBar.line(label: "restoring", files: 1, bytes: 1, seconds: 9, fraction: 1.2, width: 200)
        #expect(done.contains("100%") && done.hasSuffix("0:09") && !done.contains("ETA"), "\(done)")
        let unknown = ProgressBar.line(label: "restoring", files: 1, bytes: 1, seconds: 9, fraction: nil, width: 200)
        #expect(!unknown.contains("%") && unknown.hasSuffix("0:09"), "\(unknown)")
    }

    /// While a backup's total is being counted, `counting...` stands where the bar will be; it goes first when the
    /// line is narrow.
    @Test func theProgressLineSaysCountingUntilTheTotalComes() {
        let counting = ProgressBar.line(
            label: "backing up", files: 10, bytes: 1000, seconds: 3, fraction: nil, counting: true, width: 200)
        #expect(counting == "backing up  counting...  10 files  1.0 kB  333 B/s  0:03", "\(counting)")
        let narrow = ProgressBar.line(
            label: "backing up", files: 10, bytes: 1000, seconds: 3, fraction: nil, counting: true, width: 40)
        #expect(!narrow.contains("counting") && narrow.count <= 39, "\(narrow)")
    }

    @Test func theWidthComesFromColumnsWhenStderrIsNoTerminal() {
        // Under `swift test` stderr is a pipe or file: TIOCGWINSZ fails and COLUMNS decides.
        guard !Console().stderrIsTerminal else { return }
        #expect(ProgressBar.columns(environment: ["COLUMNS": "37"]) == 37)
        #expect(ProgressBar.columns(environment: ["COLUMNS": "junk"]) == 80)
        #expect(ProgressBar.columns(environment: [:]) == 80)
    }
}
