// ExcludeRemoveEndToEndTests: `exclude remove` says what it cleared and what still excludes the path, in the
// backup engine's terms, so it never claims "no longer excluded" for a path a backup still skips.
import Foundation
import TestSupport
import Testing

@Suite struct ExcludeRemoveEndToEndTests {
    @Test func removeNamesWhatStillExcludesThePath() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let data = try phone.containerPath("Containers/Data/Application", "com.example.news")
            let caches = "\(data)/Library/Caches"
            let nodump = "\(data)/Documents/nodump.db"
            let plain = "\(data)/Documents/plain.db"
            let flagged = "\(data)/Documents/flagged.db"
            for file in [nodump, plain, flagged] { try Data("x".utf8).write(to: URL(fileURLWithPath: file)) }
            #expect(try Shell.run("chattr", ["+d", nodump]).status == 0)
            try phone.ok(["exclude", "add", caches, nodump, flagged])
            let result = try phone.ok(["exclude", "remove", caches, nodump, plain, flagged])
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(
                lines == [
                    "\(caches): exclusion flag cleared; still excluded from backup "
                        + "(ios-caches: iOS never backs up an app's Library/Caches)",
                    "\(nodump): exclusion flag cleared; still excluded from backup "
                        + "(nodump: the file's nodump attribute is set; clear it with chattr -d)",
                    "\(plain): had no exclusion flag to clear; not excluded from backup",
                    "\(flagged): no longer excluded from backup",
                ])
            // exclude check agrees with every line.
            let check = try phone.ok(["exclude", "check", caches, nodump, plain, flagged]).stdout
            #expect(
                check == "\(caches): excluded (ios-caches)\n\(nodump): excluded (nodump)\n\(plain): included\n"
                    + "\(flagged): included\n")
            // A path under an excluded directory names the ancestor.
            let cached = "\(caches)/blob"
            try Data("x".utf8).write(to: URL(fileURLWithPath: cached))
            let under = try phone.ok(["exclude", "remove", cached]).stdout
            #expect(
                under.hasPrefix(
                    "\(cached): had no exclusion flag to clear; still excluded from backup (excluded-ancestor: "))
        }
    }
}
