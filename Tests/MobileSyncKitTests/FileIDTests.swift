// FileIDTests: file IDs match the reference's worked example and Python's hashlib.
import MobileSyncKit
import Testing

@Suite struct FileIDTests {
    @Test func theReferenceExampleHashesToItsFileID() {
        #expect(FileID.of(domain: "AppDomainGroup-group.x", relativePath: "Library/Preferences/group.x.plist")
            == "3fe895155469801e71fdf512b2ef8d9bfc91e0a5")
    }

    @Test func aDomainRootAndANonASCIIPathHashAsHashlibDoes() throws {
        for (domain, path) in [("HomeDomain", ""), ("AppDomain-com.example.app", "Documents/Résumé 📱.txt")] {
            let expected = try PythonOracle.run(
                "import hashlib, sys; print(hashlib.sha1((sys.argv[1] + '-' + sys.argv[2]).encode()).hexdigest())",
                arguments: [domain, path])
            #expect(FileID.of(domain: domain, relativePath: path) + "\n" == expected)
        }
    }

    @Test func onlyFortyLowercaseHexDigitsAreValid() {
        #expect(FileID.isValid("3fe895155469801e71fdf512b2ef8d9bfc91e0a5"))
        #expect(!FileID.isValid("3FE895155469801E71FDF512B2EF8D9BFC91E0A5"))
        #expect(!FileID.isValid("3fe895155469801e71fdf512b2ef8d9bfc91e0a"))
        #expect(!FileID.isValid("../895155469801e71fdf512b2ef8d9bfc91e0a5"))
    }
}
