// SymlinkLayoutTests: restored symlinks are judged against ROOT's final layout. Each hostile link goes through
// another restored link ("lift": `p1/…/p40/b` leads to the top-level `m`, so `b/..` is ROOT while the text says
// `p1/…/p40`) and through names that do not exist while the tree is staged (DeviceLocal/, the skeleton, the
// container class directories, what the reinstall makes), to ROOT, above it, to `/`, to `/etc` or into
// DeviceLocal/. Every one must fail the restore and change nothing anywhere (HostileArchiveTests' check); the
// legitimate links must still restore and lead where they did.
@testable import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport
import Testing

@Suite struct SymlinkLayoutTests {
    static let depth = 40
    static let deep = (1...depth).map { "p\($0)" }.joined(separator: "/")
    /// Enough `..` to climb from anywhere under the scratch area to `/` (`..` at `/` stays there).
    static let climb = String(repeating: "../", count: 30)

    /// `m/`, the lift `deep/b -> ../…/m`, links `extra` (path, target) and `deep/x -> b/../<beyond>`.
    static func lifted(_ beyond: String, extra: [(String, String)] = []) -> [UInt8] {
        TarBuilder.raw { tar in
            tar.raw("m", type: "5")
            tar.raw(deep, type: "5")
            tar.raw(deep + "/b", type: "2", link: String(repeating: "../", count: depth) + "m")
            for (path, target) in extra { tar.raw(path, type: "2", link: target) }
            tar.raw(deep + "/x", type: "2", link: "b/.." + (beyond.isEmpty ? "" : "/" + beyond))
        }
    }

    /// A chain of `count` links in front of the lift: `deep/c1 -> b`, `deep/cN -> c(N-1)`, then
    /// `deep/x -> cN/../<beyond>`.
    static func chained(_ count: Int, _ beyond: String) -> [UInt8] {
        TarBuilder.raw { tar in
            tar.raw("m", type: "5")
            tar.raw(deep, type: "5")
            tar.raw(deep + "/b", type: "2", link: String(repeating: "../", count: depth) + "m")
            for index in 1...count {
                tar.raw(deep + "/c\(index)", type: "2", link: index == 1 ? "b" : "c\(index - 1)")
            }
            tar.raw(deep + "/x", type: "2", link: "c\(count)/.." + (beyond.isEmpty ? "" : "/" + beyond))
        }
    }

    static let cases: [HostileCase] = {
        var cases: [HostileCase] = [
            // Into DeviceLocal/ (never staged, present in ROOT).
            HostileCase(name: "via a link to DeviceLocal/identity.plist (the issue's example)") { _ in
                lifted("DeviceLocal/identity.plist")
            },
            HostileCase(name: "via a link to DeviceLocal itself") { _ in lifted("DeviceLocal") },
            HostileCase(name: "via a link to DeviceLocal/lock") { _ in lifted("DeviceLocal/lock") },
            HostileCase(name: "via a link through Library into DeviceLocal") { _ in
                lifted("Library/../DeviceLocal/events.jsonl")
            },
            HostileCase(name: "via a link through DeviceLocal and back out") { _ in lifted("DeviceLocal/../Library") },
            // ROOT itself.
            HostileCase(name: "via a link to ROOT (b/..)") { _ in lifted("") },
            HostileCase(name: "via a link to ROOT (b/../.)") { _ in lifted(".") },
            HostileCase(name: "via a link to ROOT through a missing name (a/..)") { _ in lifted("a/..") },
            HostileCase(name: "via a link to ROOT through a staged directory (m/..)") { _ in lifted("m/..") },
            HostileCase(name: "via a link to ROOT through Library/SpringBoard") { _ in
                lifted("Library/SpringBoard/../..")
            },
            // Above ROOT, to `/`, to `/etc`, through each skeleton name.
            HostileCase(name: "via a link through Library/SpringBoard to the sentinel") { _ in
                lifted("Library/SpringBoard/../../../../sentinel/file")
            },
            HostileCase(name: "via a link to / through Containers") { _ in lifted("Containers/" + climb) },
            HostileCase(name: "via a link to / directly") { _ in lifted(climb) },
            HostileCase(name: "via a link to /etc through Library") { _ in lifted("Library/" + climb + "etc") },
            HostileCase(name: "via a link to /etc through Library/SpringBoard") { _ in
                lifted("Library/SpringBoard/" + climb + "etc")
            },
        ]
        for kind in ContainerKind.allCases {
            cases.append(
                HostileCase(name: "via a link to /etc through \(kind.directory)") { _ in
                    lifted(kind.directory + "/" + climb + "etc")
                })
        }
        cases.append(
            HostileCase(name: "via a link into DeviceLocal through a container the reinstall makes") { _ in
                lifted(ContainerKind.data.directory + "/NEW-UUID/tmp/../../../../../DeviceLocal/identity.plist")
            })
        cases.append(
            HostileCase(name: "via a link to /etc through tmp, made by the reinstall in a restored container") { _ in
                appArchive(beyond: "tmp/" + climb + "etc")
            })
        cases.append(
            HostileCase(name: "via a link to ROOT through Library/Caches, made by the reinstall") { _ in
                appArchive(beyond: "Library/Caches/../../../../../..")
            })
        let destinations = ["DeviceLocal/identity.plist", "", "Library/SpringBoard/" + climb + "etc"]
        for count in 2...12 {
            let beyond = destinations[count % destinations.count]
            let what = beyond.isEmpty ? "ROOT" : beyond.hasPrefix("Device") ? "DeviceLocal" : "/etc"
            cases.append(HostileCase(name: "through \(count) nested links to \(what)") { _ in chained(count, beyond) })
        }
        // Links that, followed as the kernel does, climb out while no single one does textually.
        cases.append(
            HostileCase(name: "via a link through a staged directory to above ROOT") { _ in
                lifted("m/../../sentinel/file")
            })
        cases.append(
            HostileCase(name: "a link into a lift's destination that leaves") { _ in
                lifted("", extra: [(deep + "/y", "x/../sentinel/file")])
            })
        return cases
    }()

    /// An archive of a real device with one app (its data container restored, so the reinstall adds Library/Caches
    /// and tmp to it) and a lift inside that container: `<container>/deep/b` leads to the class directory
    /// `Containers/Data/Application`, and `<container>/deep/x -> b/../Application/<UUID>/<beyond>`.
    static func appArchive(beyond: String) -> [UInt8] {
        (try? withTemporaryDirectory { base in
            let phone = try Device.initialize(base + "/old")
            let app = try phone.install(AppInstallation(bundleId: "com.example.news", name: "News", widget: nil))
            let container = app.dataContainer.relativePath
            var members = try TarBuilder.members(ofTree: phone.root) { path in
                path == DeviceLayout.deviceLocal || path.hasPrefix(ContainerKind.bundle.directory + "/")
                    || path.hasSuffix("/Library/Caches") || path.hasSuffix("/tmp")
            }
            members.append(.directory(container + "/" + deep))
            members.append(.symlink(container + "/" + deep + "/b", String(repeating: "../", count: depth + 1)))
            members.append(
                .symlink(container + "/" + deep + "/x", "b/../Application/\(app.dataContainer.uuid)/" + beyond))
            let apps = [Manifest.App(bundleId: "com.example.news", name: "News", groups: [], widget: nil)]
            return TarBuilder.archive(members, apps: apps)
        }) ?? []
    }

    @Test(arguments: cases)
    func linkThroughTheFinalLayoutFailsAndChangesNothing(_ hostile: HostileCase) throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let archive = hostile.build(scratch.sentinel)
            #expect(!archive.isEmpty)
            try scratch.write(archive)
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.self) { try scratch.restore() }
            let after = try scratch.snapshot()
            #expect(after == before, "\(snapshotDifference(before, after))")
        }
    }

    @Test func tableCoversTheChecklist() {
        #expect(Self.cases.count >= 20)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
        for name in ["DeviceLocal", "Library/SpringBoard", "made by the reinstall", "ROOT", "/etc", "to /"] {
            #expect(Self.cases.contains { $0.name.contains(name) }, "\(name)")
        }
        for kind in ContainerKind.allCases { #expect(Self.cases.contains { $0.name.contains(kind.directory) }) }
        for count in 2...12 { #expect(Self.cases.contains { $0.name.hasPrefix("through \(count) nested links") }) }
    }

    /// Relative links inside ROOT, through other links too, still restore and lead where they did.
    @Test func legitimateLinksRestore() throws {
        let other = ContainerKind.data.directory + "/B"
        let links: [(path: String, target: String, leadsTo: String?)] = [
            ("Documents/sibling", "a.txt", "Documents/a.txt"),
            (other + "/Documents/shared", "../../A/Documents/f", ContainerKind.data.directory + "/A/Documents/f"),
            ("l1", "Documents/a.txt", "Documents/a.txt"),
            ("l2", "l1", "Documents/a.txt"),
            ("docs", "Documents", "Documents"),
            ("Library/via", "../docs/a.txt", "Documents/a.txt"),
            ("q/r/b", "../../m", "m"),
            ("q/r/x", "b/../m/f", "m/f"),
            ("home", "Library/SpringBoard", "Library/SpringBoard"),
            ("Documents/gone", "nothing/here", nil),
            ("loop1", "loop2", nil),
            ("loop2", "loop1", nil),
        ] + (1...12).map { ("c\($0)", $0 == 1 ? "Documents/a.txt" : "c\($0 - 1)", "Documents/a.txt") }
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            var members: [TestMember] = [
                .directory("Documents"), .file("Documents/a.txt", Array("a\n".utf8)), .directory("Library"),
                .directory(ContainerKind.data.directory + "/A/Documents"),
                .file(ContainerKind.data.directory + "/A/Documents/f", Array("f\n".utf8)),
                .directory(other + "/Documents"), .directory("m"), .file("m/f", Array("m\n".utf8)),
                .directory("q/r"),
            ]
            members += links.map { .symlink($0.path, $0.target) }
            try scratch.write(TarBuilder.archive(members))
            let report = try scratch.restore()
            #expect(report.counts.symlinks == links.count)
            let root = URL(fileURLWithPath: scratch.root).resolvingSymlinksInPath().path
            for link in links {
                let path = scratch.root + "/" + link.path
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == link.target)
                guard let leadsTo = link.leadsTo else { continue }
                let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                #expect(resolved == root + "/" + leadsTo, "\(link.path)")
            }
        }
    }

    /// The refusal names the link and the cause in the user's terms.
    @Test func refusalNamesTheLinkAndDeviceLocal() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(Self.lifted("DeviceLocal/identity.plist"))
            do {
                try scratch.restore()
                Issue.record("the restore must fail")
            } catch let error as RestoreError {
                let text = "\(error)"
                #expect(text.contains("member '\(Self.deep)/x'"), "\(text)")
                #expect(text.contains("inside DeviceLocal") && text.contains("nothing was restored"), "\(text)")
            }
        }
    }

    /// The kernel's second check, on its own (the walk not run first): with the DeviceLocal placeholder a chain
    /// into DeviceLocal fails with EXDEV, a chain ending at the staging directory is refused, and the
    /// placeholder is gone afterwards.
    @Test(arguments: [
        ("b/../DeviceLocal/identity.plist", true), ("b/../DeviceLocal", true), ("b/..", true), ("b/../.", true),
        ("b/../m", false), ("b/../missing/..", false),
    ])
    func kernelCheckSeesDeviceLocalAndTheRoot(_ target: String, _ refused: Bool) throws {
        try withTemporaryDirectory { base in
            let tree = try Self.chain(in: base, to: target)
            if refused {
                #expect(throws: RestoreError.self) {
                    try tree.checkSymlinkChains(deviceLocal: RestoreSession.deviceLocal)
                }
            } else {
                try tree.checkSymlinkChains(deviceLocal: RestoreSession.deviceLocal)
            }
            #expect(try FileStatus.ifExists(base + "/DeviceLocal") == nil)
        }
    }

    /// A staged tree in the existing directory `base`: the directory `m`, `p1/p2/b` -> `../../m` and `p1/p2/x` ->
    /// `target` (through `b`, whose `..` is the top).
    static func chain(in base: String, to target: String) throws -> StagingTree {
        let staging = try FileDescriptor.open(base, flags: O_RDONLY | O_DIRECTORY)
        let tree = StagingTree(root: SharedDescriptor(staging), objectLimit: 100)
        try tree.createDirectory(MemberPath(Array("m".utf8)), permissions: 0o755, mtime: nil)
        try tree.createSymlink(MemberPath(Array("p1/p2/b".utf8)), target: Array("../../m".utf8))
        try tree.createSymlink(MemberPath(Array("p1/p2/x".utf8)), target: Array(target.utf8))
        return tree
    }

    /// The kernel's check while another thread renames a directory back and forth: with RESOLVE_BENEATH each `..`
    /// that races a rename anywhere fails with EAGAIN (a fifth of the opens here when measured), which once let a
    /// chain to the staging directory through unjudged. Each chain must still be judged as it is when nothing
    /// renames: refused, or allowed.
    @Test func kernelCheckHoldsWhileRenamesRace() throws {
        try withTemporaryDirectory { base in
            let renamed = base + "/renamed"
            #expect(mkdir(renamed + "1", 0o700) == 0)
            let stop = StopFlag()
            let renamer = try WorkerThread {
                while !stop.isRaised {
                    rename(renamed + "1", renamed + "2")
                    rename(renamed + "2", renamed + "1")
                }
            }
            let judged = Result { () throws -> Void in
                for round in 0..<400 {
                    #expect(mkdir(base + "/t\(round)", 0o700) == 0)
                    let refused = round.isMultiple(of: 2)
                    let staging = try Self.chain(in: base + "/t\(round)", to: refused ? "b/../." : "b/../m")
                    if refused {
                        #expect(throws: RestoreError.self) {
                            try staging.checkSymlinkChains(deviceLocal: RestoreSession.deviceLocal)
                        }
                    } else {
                        try staging.checkSymlinkChains(deviceLocal: RestoreSession.deviceLocal)
                    }
                }
            }
            stop.raise()
            renamer.join()
            try judged.get()
        }
    }

    /// The walk's own limits: a link followed through more than 40 links resolves nowhere (ELOOP) and is
    /// allowed; the bytes of names and targets are capped before any link is created.
    @Test func resolverLimits() throws {
        let resolver = SymlinkResolver(deviceLocal: Array("DeviceLocal".utf8))
        for index in 1...45 {
            try resolver.add(
                MemberPath(Array("c\(index)".utf8)), target: Array((index == 1 ? "../x" : "c\(index - 1)").utf8))
        }
        // c1 escapes on its own, whatever is judged first.
        #expect(throws: RestoreError.self) { try resolver.check() }
        let long = SymlinkResolver(deviceLocal: Array("DeviceLocal".utf8))
        try long.add(MemberPath(Array("c1".utf8)), target: Array("x".utf8))
        for index in 2...45 {
            try long.add(MemberPath(Array("c\(index)".utf8)), target: Array("c\(index - 1)/../c\(index - 1)".utf8))
        }
        try long.check()
        let capped = SymlinkResolver(deviceLocal: Array("DeviceLocal".utf8))
        let target = [UInt8](repeating: UInt8(ascii: "t"), count: 4000)
        #expect(throws: RestoreError.self) {
            for index in 0..<(SymlinkResolver.maxBytes / 4000 + 1) {
                try capped.add(MemberPath(Array("l\(index)".utf8)), target: target)
            }
        }
        #expect(capped.bytes <= SymlinkResolver.maxBytes)
        // 1990 new places per link (`uN/a/a/…`): past the node limit, refused rather than walked.
        let wide = SymlinkResolver(deviceLocal: Array("DeviceLocal".utf8), nodeLimit: 20_000)
        let links = 20_000 / 1990 + 1
        for index in 0..<links {
            let target = ["u\(index)"] + [String](repeating: "a", count: 1990)
            try wide.add(MemberPath(Array("w\(index)".utf8)), target: Array(target.joined(separator: "/").utf8))
        }
        #expect(throws: RestoreError.self) { try wide.check() }
    }
}
