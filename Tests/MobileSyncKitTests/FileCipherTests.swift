// FileCipherTests: files encrypted and decrypted with one context restarted per file, and a file's plaintext length
// told from its last blocks, checked against OpenSSL's command line (an independent implementation of AES-256-CBC).
import Foundation
import MobileSyncKit
import TestSupport
import Testing

@Suite struct FileCipherTests {
    static let keys: [[UInt8]] = [Array(repeating: 0x11, count: 32), (0..<32).map { UInt8($0 * 7 & 0xFF) }]

    /// `plain` encrypted by `cipher` (restarted with `key`), whole; `oneBuffer`: the last block finished into the
    /// same buffer after the update's output, as a backup's content-file writer does (`finish(into:)`).
    static func encrypt(_ plain: [UInt8], key: [UInt8], with cipher: FileCipher, oneBuffer: Bool = false) throws
        -> [UInt8]
    {
        try cipher.restart(key: key)
        var output = [UInt8](repeating: 0, count: plain.count + 32)
        let produced = try plain.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try cipher.update(input, into: $0) }
        }
        guard oneBuffer else { return Array(output[0..<produced]) + (try #require(cipher.finish())) }
        let last = output.withUnsafeMutableBytes { buffer in
            cipher.finish(into: UnsafeMutableRawBufferPointer(rebasing: buffer[produced...]))
        }
        return Array(output[0..<(produced + (try #require(last)))])
    }

    @Test func oneRestartedContextMatchesOpenSSLsCommandLineAndKnowsEachLength() throws {
        let encryptor = try FileCipher(key: Self.keys[0])
        let decryptor = try FileCipher(key: Self.keys[0], encrypting: false)
        try withTemporaryDirectory { scratch in
            for length in [0, 1, 15, 16, 17, 31, 32, 33, 100] {
                let key = Self.keys[length % 2]
                let plain = (0..<length).map { UInt8(($0 * 31 + length) & 0xFF) }
                let cipherText = try Self.encrypt(plain, key: key, with: encryptor)
                #expect(cipherText.count == (length / 16 + 1) * 16)
                #expect(try Self.encrypt(plain, key: key, with: encryptor, oneBuffer: true) == cipherText)
                // OpenSSL's own tool, same key and zero IV, agrees byte for byte.
                let input = scratch + "/plain-\(length)"
                try Data(plain).write(to: URL(fileURLWithPath: input))
                let openssl = try Shell.run("openssl", [
                    "enc", "-aes-256-cbc", "-K", key.map { String(format: "%02x", $0) }.joined(),
                    "-iv", String(repeating: "0", count: 32), "-in", input, "-out", input + ".enc",
                ])
                try #require(openssl.status == 0, "\(openssl.stderr)")
                #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: input + ".enc"))) == cipherText)
                let tail = Array(cipherText.suffix(cipherText.count == 16 ? 16 : 32))
                #expect(
                    decryptor.plaintextLength(ciphertextLength: UInt64(cipherText.count), tail: tail, key: key)
                        == UInt64(length))
                // Truncated to a non-block length, it has none.
                #expect(decryptor.plaintextLength(ciphertextLength: UInt64(cipherText.count - 1), tail: tail, key: key) == nil)
            }
        }
    }

    /// A last block asks for 16 bytes of room: with less, `finish(into:)` writes nothing and the file is not finished.
    @Test func finishingIntoTooSmallABufferWritesNothing() throws {
        let cipher = try FileCipher(key: Self.keys[1])
        try cipher.restart(key: Self.keys[1])
        var small = [UInt8](repeating: 0xEE, count: 15)
        #expect(small.withUnsafeMutableBytes { cipher.finish(into: $0) } == nil)
        #expect(small == [UInt8](repeating: 0xEE, count: 15))
        // The whole padding block of an empty file, as OpenSSL makes it (checked above).
        let expected = try Self.encrypt([], key: Self.keys[1], with: try FileCipher(key: Self.keys[1]))
        #expect(try #require(cipher.finish()) == expected)
    }

    @Test func theWrongKeyHasNoLengthAndDoesNotDecrypt() throws {
        let encryptor = try FileCipher(key: Self.keys[0])
        let cipherText = try Self.encrypt(Array("hello, world\n".utf8), key: Self.keys[0], with: encryptor)
        let decryptor = try FileCipher(key: Self.keys[1], encrypting: false)
        #expect(decryptor.plaintextLength(ciphertextLength: 16, tail: cipherText, key: Self.keys[1]) == nil)
        try decryptor.restart(key: Self.keys[1])
        var output = [UInt8](repeating: 0, count: 32)
        _ = try cipherText.withUnsafeBytes { input in try output.withUnsafeMutableBytes { try decryptor.update(input, into: $0) } }
        #expect(decryptor.finish() == nil)
    }
}
