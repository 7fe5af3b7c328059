// ForeignFormatEndToEndTests: a zip, 7z, RAR, cpio or xar archive is named as what it is, not "a damaged tar",
// by verify, list and restore, and the messages name the user's file.
import Foundation
import TestSupport
import Testing

@Suite struct ForeignFormatEndToEndTests {
    /// The first bytes of each format (enough for its magic), padded as a real archive would continue.
    static let formats: [(name: String, file: String, bytes: [UInt8])] = [
        ("zip", "phone.zip", [0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0]),
        ("zip", "empty.zip", [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)),
        ("7z", "phone.7z", [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4]),
        ("RAR", "phone.rar", Array("Rar!".utf8) + [0x1A, 0x07, 0x01, 0x00]),
        ("cpio", "phone.cpio", Array("070701".utf8) + Array("00000000".utf8)),
        ("xar", "phone.xar", Array("xar!".utf8) + [0, 0x1C, 0, 1]),
    ]

    @Test(arguments: 0..<formats.count)
    func aForeignArchiveIsNamedByEveryReader(_ index: Int) throws {
        let format = Self.formats[index]
        try withTemporaryDirectory { dir in
            let archive = "\(dir)/\(format.file)"
            try Data(format.bytes + [UInt8](repeating: 0x41, count: 600)).write(to: URL(fileURLWithPath: archive))
            let said = "it is a \(format.name) archive, not a tar"
            for arguments in [["verify", archive], ["list", archive], ["restore", archive, "\(dir)/new"]] {
                let result = try DevicectlBinary.run(arguments)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(said), "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(archive), "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("damaged"), "\(arguments): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/new"))
        }
    }

    @Test func aRealZipFromPythonIsRecognised() throws {
        try withTemporaryDirectory { dir in
            let archive = "\(dir)/backup.zip"
            let script = "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('a.txt', 'x')"
            try #require(try Shell.run("python3", ["-c", script, archive]).status == 0)
            let result = try DevicectlBinary.run(["list", archive])
            #expect(result.status == 1)
            #expect(result.stderr == "devicectl: \(archive): it is a zip archive, not a tar; devicectl reads pax, ustar "
                + "and GNU tar archives, plain or compressed (gzip, bzip2, xz, lzma, lzip, zstd, lz4, compress)\n")
        }
    }
}
