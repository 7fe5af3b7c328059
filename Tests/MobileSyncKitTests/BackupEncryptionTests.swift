// BackupEncryptionTests: the file keys an encrypted backup hands out, taken from pools wrapped a pool at a time, are
// each fresh and each unwrap, through the keybag's password, to the key handed out with it, across pools and classes.
import MobileSyncKit
import Testing

@Suite struct BackupEncryptionTests {
    @Test func everyFileKeyUnwrapsToItsKeyAcrossPoolsAndClasses() throws {
        let password = Array("pool password".utf8)
        let encryption = try BackupEncryption(password: password, iterations: (sha256: 10, sha1: 10))
        let classKeys = try #require(try encryption.keyBag.unlock(password: password))
        let unwrapper = ClassKeyUnwrapper(keys: classKeys)
        // 256 keys a pool: 600 keys of class 3 cross two refills; a class-4 key in between starts a pool of its own,
        // and the class-3 keys after it another.
        let classes: [UInt32] = Array(repeating: 3, count: 300) + [4] + Array(repeating: 3, count: 300)
        var seen = Set<[UInt8]>()
        for (index, protectionClass) in classes.enumerated() {
            let (key, encryptionKey) = try encryption.fileKey(protectionClass: protectionClass)
            #expect(key.count == 32 && encryptionKey.count == 44)
            #expect(seen.insert(key).inserted, "key \(index) was handed out before")
            let wrapped = try #require(WrappedKey(encryptionKey))
            #expect(wrapped.protectionClass == protectionClass)
            #expect(unwrapper.unwrap(wrapped) == key, "key \(index), class \(protectionClass)")
        }
    }
}
