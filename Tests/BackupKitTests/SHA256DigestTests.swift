// SHA256DigestTests: the OpenSSL wrapper against FIPS 180-2 vectors and sha256sum.
import BackupKit
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct SHA256DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownVectors(_ input: String, _ expected: String) throws {
        #expect(try SHA256Digest.hex(of: Array(input.utf8)) == expected)
    }

    @Test func incrementalMatchesOneShotAndReset() throws {
        let digest = try SHA256Digest()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { digest.update(chunk) }
        #expect(digest.hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(digest.finalize() == digest.finalize())
        try digest.reset()
        digest.update(Array("abc".utf8))
        #expect(digest.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// The digest written in place (the per-file paths) is the array's, and stays so until `reset()`.
    @Test func finalizeIntoAndWithFinalDigestGiveTheArraysBytes() throws {
        let digest = try SHA256Digest()
        digest.update(Array("abc".utf8))
        var written = [UInt8](repeating: 0xEE, count: 34)
        written.withUnsafeMutableBytes { digest.finalize(into: $0.baseAddress! + 1) }
        let expected = try #require(Hex.decode(Array("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".utf8)))
        #expect(Array(written[1...32]) == expected)
        #expect(written[0] == 0xEE && written[33] == 0xEE)
        #expect(digest.withFinalDigest { Array($0) } == expected)
        #expect(digest.finalize() == expected)
        try digest.reset()
        #expect(digest.withFinalDigest { Hex.encode(Array($0)) } == SHA256DigestTests.empty)
    }

    static let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test func matchesSha256sum() throws {
        try withTemporaryDirectory { dir in
            var bytes = [UInt8](repeating: 0, count: 300_001)
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
            let path = dir + "/data"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let expected = try Shell.run("sha256sum", [path]).stdout.split(separator: " ").first.map(String.init)
            #expect(try SHA256Digest.hex(of: bytes) == expected)
        }
    }
}
