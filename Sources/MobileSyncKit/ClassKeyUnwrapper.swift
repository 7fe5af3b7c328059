// ClassKeyUnwrapper: an encrypted backup's class keys, unwrapping the keys wrapped with them.

/// Unwraps `WrappedKey`s with the class keys a keybag gave (`BackupKeyBag.unlock`), one `KeyWrapper` a class made
/// at its first use. Used by one thread at a time.
public final class ClassKeyUnwrapper {
    private let keys: [UInt32: [UInt8]]
    private var wrappers: [UInt32: KeyWrapper] = [:]

    public init(keys: [UInt32: [UInt8]]) {
        self.keys = keys
    }

    /// The key inside `key`; nil when its class is not in the keybag or the unwrap fails (another key, damage).
    public func unwrap(_ key: WrappedKey) -> [UInt8]? {
        if wrappers[key.protectionClass] == nil {
            guard let classKey = keys[key.protectionClass], let made = try? KeyWrapper(kek: classKey) else { return nil }
            wrappers[key.protectionClass] = made
        }
        return wrappers[key.protectionClass]?.unwrap(key.wrapped)
    }
}
