import Glibc
import SystemKit
import Testing

@Suite struct SystemErrorTests {
    @Test func namesCallPathAndCause() {
        let error = SystemError("open", path: "/nope/x", code: ENOENT)
        #expect(error.description == "open(/nope/x): No such file or directory")
    }

    @Test func statusOfMissingPathIsNil() throws {
        #expect(try FileStatus.ifExists("/nonexistent-devicectl-test-path") == nil)
    }
}
