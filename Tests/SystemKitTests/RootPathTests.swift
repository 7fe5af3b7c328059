// RootPathTests: a ROOT argument resolved as the kernel walks it, never rewritten as text.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct RootPathTests {
    @Test func theExistingPartIsResolvedAndTheRestAppended() throws {
        try withTemporaryDirectory { dir in
            let real = try RootPath.resolve(dir)
            try FileManager.default.createDirectory(atPath: "\(dir)/a/b", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/l", withDestinationPath: "a/b")
            #expect(try RootPath.resolve("\(dir)/a/b/../new") == "\(real)/a/new")
            #expect(try RootPath.resolve("\(dir)/l/../x/y") == "\(real)/a/x/y")
            #expect(try RootPath.resolve("\(dir)/l/new/") == "\(real)/a/b/new")
            #expect(try RootPath.resolve("\(dir)//a///b") == "\(real)/a/b")
            #expect(try RootPath.resolve("/") == "/")
        }
    }

    @Test(arguments: ["missing/../x", "missing/./x", "missing/..", "a/missing/../../x", ""])
    func dotsAfterAMissingNameNameNothing(_ tail: String) throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/a", withIntermediateDirectories: true)
            let argument = tail.isEmpty ? "" : "\(dir)/\(tail)"
            #expect(throws: SystemError.self) { try RootPath.resolve(argument) }
        }
    }

    @Test func aFileInTheWayIsTheKernelsError() throws {
        try withTemporaryDirectory { dir in
            try Data().write(to: URL(fileURLWithPath: "\(dir)/file"))
            #expect(throws: SystemError("realpath", path: "\(dir)/file/x", code: ENOTDIR)) {
                try RootPath.resolve("\(dir)/file/x")
            }
        }
    }
}
