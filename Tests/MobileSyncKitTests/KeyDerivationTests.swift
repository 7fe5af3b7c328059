// KeyDerivationTests: PBKDF2 over the one-algorithm SHA calls agrees with Python's hashlib.pbkdf2_hmac (OpenSSL's
// PKCS5_PBKDF2_HMAC behind it) and with RFC 6070's vectors.
import Foundation
import MobileSyncKit
import SystemKit
import Testing

@Suite struct KeyDerivationTests {
    /// Secrets of every length that matters (empty, under, at and over the 64-byte block: a longer one is hashed
    /// first), with NUL and high bytes; salts empty to long; round counts 1, 2, 3 and more; both digests.
    @Test func everyCaseAgreesWithHashlib() throws {
        var generator = SystemRandomNumberGenerator()
        var cases: [(secret: [UInt8], salt: [UInt8], iterations: Int, digest: KeyDerivation.Digest)] = []
        for secretLength in [0, 1, 19, 20, 32, 63, 64, 65, 128, 300] {
            for (saltLength, iterations) in [(0, 1), (1, 2), (20, 3), (20, 1000), (100, 17)] {
                for digest in [KeyDerivation.Digest.sha1, .sha256] {
                    let secret = (0..<secretLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    let salt = (0..<saltLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    cases.append((secret, salt, iterations, digest))
                }
            }
        }
        let input = cases.map {
            "\($0.digest == .sha1 ? "sha1" : "sha256") \(Hex.encode($0.secret)) \(Hex.encode($0.salt)) \($0.iterations)"
        }.joined(separator: "\n")
        let expected = try PythonOracle.run("""
            import hashlib, sys
            for line in sys.stdin.read().splitlines():
                name, secret, salt, rounds = line.split(' ')
                print(hashlib.pbkdf2_hmac(name, bytes.fromhex(secret), bytes.fromhex(salt), int(rounds), 32).hex())
            """, input: Array(input.utf8)).split(separator: "\n").map(String.init)
        try #require(expected.count == cases.count)
        for (index, item) in cases.enumerated() {
            let key = try KeyDerivation.pbkdf2(item.secret, salt: item.salt, iterations: item.iterations, digest: item.digest)
            #expect(
                Hex.encode(key) == expected[index],
                "\(item.digest) secret \(item.secret.count) B, salt \(item.salt.count) B, \(item.iterations) rounds")
        }
    }

    /// RFC 6070 (PBKDF2-HMAC-SHA1): the first 20 bytes of the 32-byte key are the 20-byte vector's.
    @Test func rfc6070Vectors() throws {
        let vectors: [(String, String, Int, String)] = [
            ("password", "salt", 1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"),
            ("password", "salt", 2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"),
            ("password", "salt", 4096, "4b007901b765489abead49d926f721d065a429c1"),
            ("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096,
             "3d2eec4fe41c849b80c8d83662c0e44a8b291a96"),
        ]
        for (password, salt, iterations, hex) in vectors {
            let key = try KeyDerivation.pbkdf2(Array(password.utf8), salt: Array(salt.utf8), iterations: iterations, digest: .sha1)
            #expect(Hex.encode(Array(key.prefix(20))) == hex, "\(password) \(iterations)")
        }
        let nul = try KeyDerivation.pbkdf2(Array("pass\0word".utf8), salt: Array("sa\0lt".utf8), iterations: 4096, digest: .sha1)
        #expect(Hex.encode(Array(nul.prefix(16))) == "56fa6aa75548099dcc37d7f03425e0c3")
    }

    @Test func noRoundsIsRefused() {
        #expect(throws: MobileSyncError.self) {
            try KeyDerivation.pbkdf2([1], salt: [2], iterations: 0, digest: .sha256)
        }
    }
}
