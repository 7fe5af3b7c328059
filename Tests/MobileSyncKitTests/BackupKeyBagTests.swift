// BackupKeyBagTests: the keybag's TLVs in the device's order, and its class keys unwrap under the key Python's
// hashlib derives from the password.
import Foundation
import MobileSyncKit
import SystemKit
import Testing

@Suite struct BackupKeyBagTests {
    /// The (tag, value) items of a keybag.
    private func items(_ bytes: [UInt8]) throws -> [(String, [UInt8])] {
        var result: [(String, [UInt8])] = []
        var offset = 0
        while offset < bytes.count {
            let tag = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let length = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            result.append((tag, Array(bytes[offset + 8..<offset + 8 + length])))
            offset += 8 + length
        }
        #expect(offset == bytes.count)
        return result
    }

    private func number(_ value: [UInt8]) -> UInt32 { value.reduce(0) { $0 << 8 | UInt32($1) } }

    @Test func aTwoStageKeyBagListsItsHeaderThenFiveItemsAClass() throws {
        let (bag, keys) = try BackupKeyBag.make(password: Array("hunter2".utf8), iterations: 100, passwordStage: 1000)
        let list = try items(bag.encoded())
        #expect(list.prefix(10).map(\.0) == ["VERS", "TYPE", "UUID", "HMCK", "WRAP", "SALT", "ITER", "DPWT", "DPIC", "DPSL"])
        #expect(number(list[6].1) == 100 && number(list[8].1) == 1000)
        let classes = list.dropFirst(10)
        #expect(classes.count == 11 * 5)
        #expect(classes.map(\.0) == Array(repeating: ["UUID", "CLAS", "WRAP", "KTYP", "WPKY"], count: 11).flatMap { $0 })

        // The key-encryption key, derived by Python's hashlib, unwraps every class key.
        let salt = Hex.encode(list[5].1), stageSalt = Hex.encode(list[9].1)
        let kekHex = try PythonOracle.run("""
            import hashlib, sys
            k1 = hashlib.pbkdf2_hmac('sha256', b'hunter2', bytes.fromhex(sys.argv[2]), 1000, 32)
            print(hashlib.pbkdf2_hmac('sha1', k1, bytes.fromhex(sys.argv[1]), 100, 32).hex())
            """, arguments: [salt, stageSalt]).trimmingCharacters(in: .whitespacesAndNewlines)
        let kek = try #require(Hex.decode(Array(kekHex.utf8)))
        for block in stride(from: 10, to: list.count, by: 5) {
            let number = number(list[block + 1].1)
            #expect(try KeyWrap.unwrap(list[block + 4].1, with: kek) == keys[number], "class \(number)")
        }
    }

    @Test func anUnencryptedBackupsKeyBagHasOneStage() throws {
        let (bag, _) = try BackupKeyBag.make(password: [], iterations: 10_000, passwordStage: nil)
        let tags = try items(bag.encoded()).map(\.0)
        #expect(!tags.contains("DPWT") && !tags.contains("DPIC") && !tags.contains("DPSL"))
        #expect(tags.count == 7 + 11 * 5)
    }
}
