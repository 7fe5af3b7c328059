// MakeInstallEndToEndTests: `make install-files` (the copying half of `make install`) puts the binary, the manual
// page and the three completion scripts below DESTDIR/PREFIX with their modes, as the binary generates them, and
// `make uninstall` removes exactly those files.
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct MakeInstallEndToEndTests {
    /// The package directory (where the Makefile is).
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static let installed: [(path: String, mode: mode_t, generatedBy: [String]?)] = [
        ("usr/bin/devicectl", 0o755, nil),
        ("usr/share/man/man1/devicectl.1", 0o644, ["help", "--man"]),
        ("usr/share/bash-completion/completions/devicectl", 0o644, ["completion", "bash"]),
        ("usr/share/zsh/site-functions/_devicectl", 0o644, ["completion", "zsh"]),
        ("usr/share/fish/vendor_completions.d/devicectl.fish", 0o644, ["completion", "fish"]),
    ]

    @Test func installsEveryFileAndUninstallRemovesThem() throws {
        try withTemporaryDirectory { scratch throws in
            let variables = ["BIN=\(DevicectlBinary.path)", "DESTDIR=\(scratch)/stage", "PREFIX=/usr"]
            let install = try Shell.run("make", ["-C", Self.package, "--no-print-directory", "install-files"] + variables)
            #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
            for file in Self.installed {
                let path = "\(scratch)/stage/\(file.path)"
                var status = stat()
                #expect(stat(path, &status) == 0, "\(file.path) not installed")
                #expect(status.st_mode & 0o7777 == file.mode, "\(file.path): mode \(String(status.st_mode & 0o7777, radix: 8))")
                #expect(install.stdout.contains("installed \(path)"))
                if let arguments = file.generatedBy {
                    let generated = try DevicectlBinary.run(arguments)
                    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == generated.stdoutData, "\(file.path)")
                }
            }
            let installedBinary = try Shell.run("\(scratch)/stage/usr/bin/devicectl", ["--version"])
            #expect(installedBinary.stdout.hasPrefix("devicectl "))
            let uninstall = try Shell.run("make", ["-C", Self.package, "--no-print-directory", "uninstall"] + variables)
            #expect(uninstall.status == 0, "\(uninstall.stderr)")
            for file in Self.installed {
                #expect(access("\(scratch)/stage/\(file.path)", F_OK) != 0, "\(file.path) left behind")
            }
        }
    }
}
