// PendingKeyBag: an unencrypted MobileSync backup's keybag, made on a thread of its own while the files are written.
import MobileSyncKit
import SystemKit

/// The keybag `Manifest.plist` carries. An unencrypted backup's is made as a device makes it (class keys wrapped
/// under PBKDF2-SHA1 of the empty password, 10,000 rounds: reference §5.2), which took about 6 ms of one core before
/// the first file was read (OpenSSL's PBKDF2 then, 20,000 HMACs for a 32-byte key), a third of the backup of a small
/// device: it is made on a worker thread started with the backup and waited for when `Manifest.plist` is written
/// (with `KeyDerivation`'s own rounds too, a small device's MobileSync backup 18.0 -> 14.0 ms, 31 alternating runs). An encrypted backup's keybag is ready at once (its key
/// derivation is the password's, done before anything is written).
final class PendingKeyBag {
    /// The worker's result, read once the worker is joined.
    private final class Outcome: @unchecked Sendable {
        var result: Result<BackupKeyBag, MobileSyncError>?
    }

    private let outcome = Outcome()
    private var worker: WorkerThread?

    /// Starts making an unencrypted backup's keybag with `iterations` rounds.
    init(unencryptedIterations iterations: UInt32) throws(SystemError) {
        let outcome = self.outcome
        worker = try WorkerThread {
            outcome.result = Result { () throws(MobileSyncError) in
                try BackupKeyBag.make(password: [], iterations: iterations, passwordStage: nil).0
            }
        }
    }

    /// A keybag already made (an encrypted backup's).
    init(ready keyBag: BackupKeyBag) {
        outcome.result = .success(keyBag)
    }

    /// The keybag, once made (waits for the worker).
    func value() throws(MobileSyncError) -> BackupKeyBag {
        worker.take()?.join()
        guard let result = outcome.result else { preconditionFailure("the keybag's worker ended without a result") }
        return try result.get()
    }
}
