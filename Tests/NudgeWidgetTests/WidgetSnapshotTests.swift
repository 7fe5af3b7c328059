// WidgetSnapshotTests: classifying the flag's value, including values read back from a binary plist.
import DeviceKit
import Foundation
import NudgeWidget
import TestSupport
import Testing

@Suite struct WidgetSnapshotTests {
    @Test func classifiesInMemoryValues() {
        #expect(WidgetSnapshot.flag(from: nil) == .absent)
        #expect(WidgetSnapshot.flag(from: true) == .true)
        #expect(WidgetSnapshot.flag(from: false) == .false)
        #expect(WidgetSnapshot.flag(from: 1) == .notBoolean)
        #expect(WidgetSnapshot.flag(from: 0) == .notBoolean)
        #expect(WidgetSnapshot.flag(from: 1.0) == .notBoolean)
        #expect(WidgetSnapshot.flag(from: "YES") == .notBoolean)
        #expect(WidgetSnapshot.flag(from: "true") == .notBoolean)
        #expect(WidgetSnapshot.flag(from: Data([1])) == .notBoolean)
        #expect(WidgetSnapshot.flag(from: [true]) == .notBoolean)
    }

    /// Foundation reads a plist integer 1 as an NSNumber that `as? Bool` turns into `true`: the
    /// classification must still call it not a boolean, and a real boolean `true`.
    @Test func classifiesValuesReadBackFromABinaryPlist() throws {
        try withTemporaryDirectory { dir in
            let path = "\(dir)/suite.plist"
            try PropertyListFile.write(["b": true, "f": false, "i": 1, "z": 0, "s": "YES", "d": 1.0], to: path)
            let values = try #require(try PropertyListFile.readDictionary(path))
            #expect(WidgetSnapshot.flag(from: values["b"]) == .true)
            #expect(WidgetSnapshot.flag(from: values["f"]) == .false)
            #expect(WidgetSnapshot.flag(from: values["i"]) == .notBoolean)
            #expect(WidgetSnapshot.flag(from: values["z"]) == .notBoolean)
            #expect(WidgetSnapshot.flag(from: values["s"]) == .notBoolean)
            #expect(WidgetSnapshot.flag(from: values["d"]) == .notBoolean)
            #expect(WidgetSnapshot.flag(from: values["missing"]) == .absent)
        }
    }

    /// A plist written by Python's plistlib (as a user or another tool might) reads the same way.
    @Test func classifiesValuesWrittenByPlistlib() throws {
        try withTemporaryDirectory { dir in
            let path = "\(dir)/suite.plist"
            let script =
                "import plistlib,sys; open(sys.argv[1],'wb').write(plistlib.dumps("
                + "{'b': True, 'i': 1}, fmt=plistlib.FMT_BINARY))"
            #expect(try Shell.run("python3", ["-c", script, path]).status == 0)
            let values = try #require(try PropertyListFile.readDictionary(path))
            #expect(WidgetSnapshot.flag(from: values["b"]) == .true)
            #expect(WidgetSnapshot.flag(from: values["i"]) == .notBoolean)
        }
    }
}
