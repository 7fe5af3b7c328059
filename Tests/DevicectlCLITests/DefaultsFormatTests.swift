import Foundation
import Testing

// DefaultsFormatTests: values print the way macOS `defaults read` prints them.
@testable import DevicectlCLI

@Suite struct DefaultsFormatTests {
    typealias Format = DefaultsCommand.Format

    @Test func scalarsPrintBare() {
        #expect(Format.value(true) == "1")
        #expect(Format.value(false) == "0")
        #expect(Format.value(42) == "42")
        #expect(Format.value(-5) == "-5")
        #expect(Format.value(1.5) == "1.5")
        #expect(Format.value(2.0) == "2")
        #expect(Format.value("hello world") == "hello world")
        #expect(Format.value(Date(timeIntervalSince1970: 1_796_115_600)) == "2026-12-01 09:00:00 +0000")
        #expect(Format.value(Data([0xde, 0xad])) == "{length = 2, bytes = 0xdead}")
    }

    @Test func plistReadValuesPrintTheSame() throws {
        // Values as they come back from a binary plist (NSNumber, bridged Bool) print like native ones.
        let data = try PropertyListSerialization.data(
            fromPropertyList: ["b": true, "f": false, "i": 7, "d": 0.25, "big": Int64.max], format: .binary, options: 0)
        let plist = try #require(
            try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any])
        #expect(Format.value(plist["b"]!) == "1")
        #expect(Format.value(plist["f"]!) == "0")
        #expect(Format.value(plist["i"]!) == "7")
        #expect(Format.value(plist["d"]!) == "0.25")
        #expect(Format.value(plist["big"]!) == "9223372036854775807")
    }

    @Test func domainPrintsInOldStyleForm() {
        let domain: [String: Any] = [
            "notificationEnabled": true, "name": "hello world", "count": 3, "scale": 1.5, "simple": "word",
            "list": ["en", "en-US"], "nested": ["key": "v", "inner": [1, 2]], "empty": [String: Any](),
            "quote\"d": "a\\b\nc", "jp": "あ",
        ]
        let expected = """
            {
                count = 3;
                empty =     {
                };
                jp = "\\U3042";
                list =     (
                    en,
                    "en-US"
                );
                name = "hello world";
                nested =     {
                    inner =         (
                        1,
                        2
                    );
                    key = v;
                };
                notificationEnabled = 1;
                "quote\\"d" = "a\\\\b\\nc";
                scale = "1.5";
                simple = word;
            }
            """
        #expect(Format.domain(domain) == expected)
        #expect(Format.domain([:]) == "{\n}")
    }

    @Test func arrayKeyPrintsInOldStyleForm() {
        #expect(Format.value(["a", ["b"]] as [Any]) == "(\n    a,\n    (\n        b\n    )\n)")
    }
}
