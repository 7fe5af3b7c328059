import CSupport
import Glibc
import Testing

/// `csupport_dirent_next` decodes getdents64 records in C and refuses any record that does not fit its buffer.
@Suite struct DirentDecodingTests {
    /// One `struct linux_dirent64`: d_ino (8), d_off (8), d_reclen (2), d_type (1), the name and its NUL,
    /// padded to 8 bytes; `reclen` overrides the record length, `terminated: false` leaves out the NUL.
    private func record(_ name: String, type: UInt8, reclen: Int? = nil, terminated: Bool = true) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        let nameBytes = Array(name.utf8) + (terminated ? [0] : [])
        let length = reclen ?? (19 + nameBytes.count + 7) / 8 * 8
        bytes += [UInt8(length & 0xFF), UInt8(length >> 8), type]
        bytes += nameBytes
        if terminated { bytes += [UInt8](repeating: 0, count: max(0, (19 + nameBytes.count + 7) / 8 * 8 - bytes.count)) }
        return bytes
    }

    private func decode(_ buffer: [UInt8]) -> (names: [String], types: [UInt8], status: Int32) {
        var names: [String] = [], types: [UInt8] = []
        var offset = 0
        var entry = csupport_dirent()
        while true {
            let status = buffer.withUnsafeBytes { csupport_dirent_next($0.baseAddress, buffer.count, &offset, &entry) }
            if status != 1 { return (names, types, status) }
            let name = UnsafeRawBufferPointer(start: entry.name, count: entry.length)
            names.append(String(decoding: name, as: UTF8.self))
            types.append(entry.type)
        }
    }

    @Test func decodesEveryRecordInOrder() {
        let buffer = record(".", type: 4) + record("a.txt", type: 8) + record("a much longer name", type: 10)
        let result = decode(buffer)
        #expect(result.names == [".", "a.txt", "a much longer name"])
        #expect(result.types == [4, 8, 10])
        #expect(result.status == 0)
    }

    @Test func refusesARecordLongerThanTheBuffer() {
        let result = decode(record("ok", type: 8) + record("x", type: 8, reclen: 4096))
        #expect(result.names == ["ok"])
        #expect(result.status == -1 && errno == EIO)
    }

    @Test func refusesARecordShorterThanItsHeader() {
        #expect(decode(record("x", type: 8, reclen: 19)).status == -1)
        #expect(decode(record("x", type: 8, reclen: 0)).status == -1)
        #expect(decode([UInt8](repeating: 0, count: 10)).status == -1)
    }

    @Test func refusesANameWithoutItsTerminator() {
        let unterminated = record("abcde", type: 8, reclen: 24, terminated: false)
        #expect(decode(unterminated).status == -1)
    }
}
