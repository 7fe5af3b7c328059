// MarkerKindEndToEndTests: only a regular file is the marker. `launch` refuses anything else there, changing
// nothing; `status` and `widget-refresh` count it as absent and warn, consistently; and a launch on a file
// system without user xattrs leaves no marker, no flag and no event.
import Foundation
import TestSupport
import Testing

@Suite struct MarkerKindEndToEndTests {
    typealias F = NudgeFixture

    /// A directory or a FIFO where the marker should be (e.g. `--marker-name Library`).
    @Test(arguments: ["directory", "fifo"])
    func aMarkerThatIsNotARegularFileIsAbsentAndWarned(_ kind: String) throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phone(root)
            try F.launch(root, at: F.at(hours: 0))
            let marker = try F.markerPath(root)
            try FileManager.default.removeItem(atPath: marker)
            if kind == "directory" {
                try FileManager.default.createDirectory(atPath: marker, withIntermediateDirectories: false)
            } else {
                #expect(mkfifo(marker, 0o644) == 0)
            }
            let what = kind == "fifo" ? "a FIFO" : "a directory"
            let warning = "\(marker): the marker is not a regular file (\(what)); counted as absent"
            let before = try TreeSnapshot.take(root)
            let launch = try F.run(["launch", root, "--app", F.news], at: F.at(hours: 1))
            #expect(launch.status == 1)
            #expect(launch.stderr.contains("the marker is not a regular file"), "\(launch.stderr)")
            #expect(try TreeSnapshot.take(root) == before, "a refused launch changed the device")

            let status = try F.run(["status", root, "--json"], at: F.at(hours: 1))
            #expect(status.status == 0)
            #expect(status.stderr.contains(warning), "\(status.stderr)")
            let statusObject = try JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any]
            let app = try #require((statusObject?["apps"] as? [[String: Any]])?.first)
            #expect(app["markerPresent"] as? Bool == false)

            let refresh = try F.run(["widget-refresh", root, "--json"], at: F.at(hours: 1))
            #expect(refresh.status == 0)
            #expect(refresh.stderr.contains(warning), "\(refresh.stderr)")
            let refreshObject = try JSONSerialization.jsonObject(with: refresh.stdoutData) as? [String: Any]
            let widgets = try #require(refreshObject?["widgets"] as? [[String: Any]])
            #expect(widgets.first?["reason"] as? String == "restored")
        }
    }

    /// On a file system without user xattrs (ramfs) a launch fails before anything is written or logged.
    @Test(.enabled(if: RamfsNamespace.available, "needs unshare and mount (root)"))
    func aLaunchWithoutUserXattrsChangesNothing() throws {
        try withTemporaryDirectory { dir in
            let source = dir + "/p"
            try F.phone(source)
            let result = try RamfsNamespace.run(
                """
                cp -r "\(source)" "$1/p" || exit 98
                find "$1/p" -type f -exec sha256sum {} + | sort > "$1/before"
                "$2" launch "$1/p" --app \(F.news) --now 2026-12-01T10:00:00Z; echo "launch=$?"
                find "$1/p" -type f -exec sha256sum {} + | sort > "$1/after"
                cmp -s "$1/before" "$1/after" && echo same
                find "$1/p" -name device-restoration-marker.txt | wc -l
                """)
            #expect(result.stdout == "launch=1\nsame\n0\n", "\(result.stdout) \(result.stderr)")
            #expect(
                result.stderr.contains("the file system does not support user extended attributes"),
                "\(result.stderr)")
        }
    }
}
