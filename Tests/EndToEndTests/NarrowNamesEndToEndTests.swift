// NarrowNamesEndToEndTests: in the shipped binary (the Swift runtime linked statically, which the toolchain links with
// -export-dynamic), libarchive's calls for a member's wide name bind to devicectl's own definition, which answers NULL
// (CArchive's NarrowNames.c), so no name is converted character by character; libarchive then tells an old tar's
// directory (a regular member whose name ends in '/') from the narrow name, as its own conversion would
// (NarrowNamesTests reads the same members in-process, where libarchive's definition runs).
import Foundation
import TestSupport
import Testing

@Suite struct NarrowNamesEndToEndTests {
    /// Regular members named with a trailing '/' (ustar, pax with a UTF-8 name, GNU), written by Python's tarfile,
    /// are directories in `list --json`; the file after them is a file.
    @Test func listTellsAnOldTarsDirectoriesByTheirSlash() throws {
        try withTemporaryDirectory { dir in
            let archive = dir + "/old.tar"
            try #require(try Shell.run("python3", ["-c", Self.oldTar, archive]).status == 0)
            let result = try DevicectlBinary.succeed(["list", "--json", archive])
            let object = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]
            let members = try #require(object?["members"] as? [[String: Any]])
            #expect(members.map { $0["path"] as? String } == ["Library/Old/", "Library/Caf\u{E9}/", "Library/Gnu/", "Library/after"])
            #expect(members.map { $0["type"] as? String } == ["directory", "directory", "directory", "file"])
        }
    }

    /// The dynamic loader's log (`LD_DEBUG=bindings`) names where libarchive's reference to `archive_entry_pathname_w`
    /// went: to devicectl when its Swift runtime is linked statically (`make release`, what ships and what the bench
    /// measures), to libarchive itself in a debug build, which exports nothing.
    @Test func libarchiveAsksDevicectlForWideNamesInTheShippedBinary() throws {
        try withTemporaryDirectory { dir in
            let archive = dir + "/old.tar"
            try #require(try Shell.run("python3", ["-c", Self.oldTar, archive]).status == 0)
            let result = try Shell.run(DevicectlBinary.path, ["list", archive], environment: ["LD_DEBUG": "bindings,libs"])
            try #require(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            let binding = try #require(
                lines.first { $0.contains("libarchive.so") && $0.hasSuffix("symbol `archive_entry_pathname_w'") },
                "no binding of archive_entry_pathname_w in the loader's log")
            // "binding file /lib/.../libarchive.so.13 [0] to FILE [0]: normal symbol `archive_entry_pathname_w'"
            let to = try #require(binding.range(of: " to "), "\(binding)")
            let boundTo = String(binding[to.upperBound...].prefix { $0 != " " })
            let staticRuntime = !lines.contains { $0.contains("calling init: ") && $0.contains("libswiftCore.so") }
            if staticRuntime {
                #expect(boundTo == DevicectlBinary.path, "\(binding)")
            } else {
                #expect(boundTo.contains("/libarchive.so"), "\(binding)")
            }
        }
    }

    /// Writes argv[1]: four members in three tar formats, the first three regular ('0') with names ending in '/'.
    static let oldTar = """
        import sys, tarfile
        out = bytearray()
        def add(name, form, data=b""):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1700000000
            out.extend(info.tobuf(form, "utf-8", "surrogateescape"))
            out.extend(data + bytes(-len(data) % 512))
        add("Library/Old/", tarfile.USTAR_FORMAT)
        add("Library/Caf\\u00e9/", tarfile.PAX_FORMAT)
        add("Library/Gnu/", tarfile.GNU_FORMAT)
        add("Library/after", tarfile.PAX_FORMAT, b"after")
        out.extend(bytes(1024))
        out.extend(bytes(-len(out) % 10240))
        open(sys.argv[1], "wb").write(out)
        """
}
