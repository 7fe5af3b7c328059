// FileDescriptorTests: the owned descriptor closes exactly once (close, or deinit), gives itself up with take,
// and reports a failed close.
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct FileDescriptorTests {
    /// A new descriptor for /dev/null at a high number (tests running meanwhile open the lowest free numbers,
    /// so none of them reuses it between a close and the check).
    static func highDescriptor(_ floor: Int32) throws -> Int32 {
        let low = try SystemError.check("open") { open("/dev/null", O_RDWR | O_CLOEXEC) }
        defer { _ = Glibc.close(low) }
        return try SystemError.check("fcntl") { fcntl(low, F_DUPFD_CLOEXEC, floor) }
    }

    /// 0 when `raw` is an open descriptor of this process, else the errno of `fcntl(F_GETFD)` (EBADF: closed).
    static func state(_ raw: Int32) -> Int32 {
        fcntl(raw, F_GETFD) == -1 ? errno : 0
    }

    @Test func closeClosesOnce() throws {
        let raw = try Self.highDescriptor(700)
        let file = FileDescriptor(rawValue: raw, path: "/dev/null")
        #expect(Self.state(raw) == 0)
        try file.close()
        #expect(Self.state(raw) == EBADF)
    }

    @Test func deinitClosesWhatWasNotClosed() throws {
        let raw = try Self.highDescriptor(720)
        do {
            let file = FileDescriptor(rawValue: raw, path: "/dev/null")
            #expect(file.rawValue == raw)
            #expect(Self.state(raw) == 0)
        }
        #expect(Self.state(raw) == EBADF)
    }

    @Test func takeGivesUpOwnership() throws {
        let raw = try Self.highDescriptor(740)
        let file = FileDescriptor(rawValue: raw, path: "/dev/null")
        #expect(file.take() == raw)
        #expect(Self.state(raw) == 0)
        #expect(Glibc.close(raw) == 0)
    }

    @Test func aFailedCloseIsReported() throws {
        let raw = try Self.highDescriptor(760)
        #expect(Glibc.close(raw) == 0)
        let file = FileDescriptor(rawValue: raw, path: "/gone")
        var failure: SystemError?
        do {
            try file.close()
        } catch {
            failure = error
        }
        #expect(failure == SystemError("close", path: "/gone", code: EBADF))
        #expect(failure?.description == "close(/gone): Bad file descriptor")
    }

    @Test func writesReadsAndStats() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/file"
            let file = try FileDescriptor.open(path, flags: O_RDWR | O_CREAT | O_EXCL, mode: 0o600)
            try file.write(Array("hello".utf8))
            #expect(try file.status().size == 5)
            #expect(lseek(file.rawValue, 0, SEEK_SET) == 0)
            #expect(try file.readAll() == Array("hello".utf8))
            #expect(lseek(file.rawValue, 0, SEEK_SET) == 0)
            var failure: SystemError?
            do throws(SystemError) {
                _ = try file.readAll(limit: 4)
            } catch {
                failure = error
            }
            #expect(failure == SystemError("read", path: path, code: EFBIG))
            try file.close()
        }
    }
}
