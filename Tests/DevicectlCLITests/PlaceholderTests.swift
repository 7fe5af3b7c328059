// PlaceholderTests: test arguments are filled in once: a temporary path holding a placeholder's letters stays whole.
import TestSupport
import Testing

@Suite struct PlaceholderTests {
    /// mkdtemp once named a directory "devicectl-test.OOUT28": replacing ROOT and then OUT in turn made two paths
    /// of one (MalformedInputTests failed naming "/dev/shm/devicectl-test.O/dev/shm/devicectl-test.OOUT28/out28/phone").
    @Test func aValueIsNeverSearchedAgain() {
        let root = "/dev/shm/devicectl-test.OOUT28/phone"
        let out = "/dev/shm/devicectl-test.OOUT28/out"
        #expect(
            substitutingPlaceholders(["info", "ROOT", "-o", "OUT/x.tar", "--to=ROOT/a"], ["ROOT": root, "OUT": out])
                == ["info", root, "-o", out + "/x.tar", "--to=\(root)/a"])
        #expect(substitutingPlaceholders(["DIRDIR", "D"], ["DIR": "/t/DIR", "D": "d"]) == ["/t/DIR/t/DIR", "d"])
    }
}
