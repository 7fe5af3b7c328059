// KeyWrapTests: RFC 3394's own test vector, and a wrong key-encryption key is refused, not garbage.
import MobileSyncKit
import SystemKit
import Testing

@Suite struct KeyWrapTests {
    // RFC 3394 §4.6: 256 bits of key data with a 256-bit KEK.
    let kek = Hex.decode(Array("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F".utf8))!
    let key = Hex.decode(Array("00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F".utf8))!
    let wrapped = "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21"

    @Test func wrappingMatchesTheRFCVector() throws {
        #expect(Hex.encode(try KeyWrap.wrap(key, with: kek)) == wrapped)
        #expect(try KeyWrap.unwrap(Hex.decode(Array(wrapped.utf8))!, with: kek) == key)
    }

    @Test func theWrongKeyEncryptionKeyUnwrapsNothing() throws {
        var wrong = kek
        wrong[0] ^= 1
        #expect(try KeyWrap.unwrap(Hex.decode(Array(wrapped.utf8))!, with: wrong) == nil)
        #expect(try KeyWrap.unwrap([1, 2, 3], with: kek) == nil)
    }

    @Test func oneWrapperAlternatingDirectionsAgreesWithFreshContexts() throws {
        let wrapper = try KeyWrapper(kek: kek)
        for seed in 0..<12 {
            let other = (0..<32).map { UInt8(($0 * 29 + seed * 3) & 0xFF) }
            let fresh = try KeyWrap.wrap(other, with: kek)
            if seed % 3 == 0 { #expect(wrapper.unwrap(fresh) == other) }
            #expect(try wrapper.wrap(other) == fresh)
            #expect(try wrapper.wrap(other) == fresh)
            #expect(wrapper.unwrap(fresh) == other)
            #expect(wrapper.unwrap(fresh) == other)
        }
    }

    @Test func oneWrapperWrapsManyKeysAsKeyWrapDoes() throws {
        let wrapper = try KeyWrapper(kek: kek)
        #expect(Hex.encode(try wrapper.wrap(key)) == wrapped)
        for seed in 0..<20 {
            let other = (0..<32).map { UInt8(($0 * 13 + seed) & 0xFF) }
            #expect(try wrapper.wrap(other) == (try KeyWrap.wrap(other, with: kek)))
            #expect(try KeyWrap.unwrap(try wrapper.wrap(other), with: kek) == other)
            #expect(wrapper.unwrap(try KeyWrap.wrap(other, with: kek)) == other)
        }
        var wrong = kek
        wrong[0] ^= 1
        #expect(try KeyWrapper(kek: wrong).unwrap(Hex.decode(Array(wrapped.utf8))!) == nil)
    }

    /// `KeyWrapper` runs RFC 3394's steps itself; OpenSSL's wrap cipher (`KeyWrap`) is the independent reference.
    @Test func theWrappersStepsAgreeWithOpenSSLsWrapCipherAtEveryLength() throws {
        var generator = SystemRandomNumberGenerator()
        for count in stride(from: 16, through: 72, by: 8) {
            let kek = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let wrapper = try KeyWrapper(kek: kek)
            for _ in 0..<8 {
                let key = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let reference = try KeyWrap.wrap(key, with: kek)
                #expect(try wrapper.wrap(key) == reference)
                #expect(wrapper.unwrap(reference) == key)
                // Any changed byte fails the integrity check, in either implementation.
                var damaged = reference
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] ^= 0x40
                #expect(wrapper.unwrap(damaged) == nil)
                #expect(try KeyWrap.unwrap(damaged, with: kek) == nil)
            }
        }
        #expect(throws: MobileSyncError.self) { try KeyWrapper(kek: kek).wrap(Array(self.key.prefix(12))) }
        #expect(try KeyWrapper(kek: kek).unwrap(Array(repeating: 0, count: 20)) == nil)
    }

    /// Many keys wrapped together are each wrapped as OpenSSL's wrap cipher wraps it alone, in order; a buffer that is
    /// not whole keys is refused.
    @Test func keysWrappedTogetherAreEachWrappedAsAlone() throws {
        var generator = SystemRandomNumberGenerator()
        for (length, count) in [(32, 256), (32, 1), (16, 7), (24, 3), (40, 5)] {
            let kek = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let keys = (0..<count).map { _ in (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            let wrapped = try keys.flatMap { $0 }.withUnsafeBytes { try KeyWrapper(kek: kek).wrap(many: $0, length: length) }
            #expect(wrapped.count == count * (length + 8))
            for (index, key) in keys.enumerated() {
                let one = Array(wrapped[(index * (length + 8))..<((index + 1) * (length + 8))])
                #expect(one == (try KeyWrap.wrap(key, with: kek)), "key \(index) of \(count), \(length) bytes")
            }
        }
        let wrapper = try KeyWrapper(kek: kek)
        #expect(throws: MobileSyncError.self) { try [UInt8](repeating: 1, count: 33).withUnsafeBytes { try wrapper.wrap(many: $0, length: 32) } }
        #expect(throws: MobileSyncError.self) { try [UInt8](repeating: 1, count: 36).withUnsafeBytes { try wrapper.wrap(many: $0, length: 12) } }
        #expect(try [UInt8]().withUnsafeBytes { try wrapper.wrap(many: $0, length: 32) } == [])
    }
}
