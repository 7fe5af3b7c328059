// ProcessEnvironmentTests: the environment read from `environ` is the one Foundation reads (the end-to-end suites
// pass DEVICECTL_NOW, DEVICECTL_THREADS and friends to the binary, which reads them through it).
import Foundation
import SystemKit
import Testing

@Suite struct ProcessEnvironmentTests {
    /// Read only: a test that changed the environment would race the suites that spawn processes meanwhile.
    @Test func itIsTheEnvironmentFoundationReads() {
        #expect(ProcessEnvironment.current() == ProcessInfo.processInfo.environment)
    }
}
