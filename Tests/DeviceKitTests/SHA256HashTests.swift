// SHA256HashTests: the device model's one-shot SHA-256 against FIPS 180-2's vectors and OpenSSL's EVP digest, and the
// push token built on it.
import DeviceKit
import TestSupport
import Testing

@Suite struct SHA256HashTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test func knownVectors() {
        #expect(hex(SHA256Hash.of([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256Hash.of(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(hex(SHA256Hash.of(twoBlocks)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func agreesWithOpenSSLsEVPDigest() {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 55, 56, 63, 64, 65, 1000, 4097] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(hex(SHA256Hash.of(bytes)) == TreeSnapshot.sha256(bytes), "\(length) bytes")
        }
    }

    @Test func pushTokenIsTheDigestOfTheDeviceAndTheApp() {
        let udid = "00008030-001A2B3C4D5E6F70", bundle = "com.example.news"
        #expect(DeviceToken.derive(udid: udid, bundleId: bundle)
            == TreeSnapshot.sha256(Array("apns-token:\(udid):\(bundle)".utf8)))
    }
}
