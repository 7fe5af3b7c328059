// PasswordSource: an encrypted backup's password: a file, the environment, or asked twice on the terminal.
import BackupKit
import Foundation
import Glibc
import SystemKit

/// Where `backup --encrypt` gets its password, never from the command line (other users see it in `ps`):
/// `--password-file FILE` (its first line; `-` is standard input), else `DEVICECTL_BACKUP_PASSWORD`, else a prompt
/// on the terminal (twice, without echo) when standard input is one. An empty password is refused.
enum PasswordSource {
    static let environmentName = "DEVICECTL_BACKUP_PASSWORD"
    /// A password file longer than this is not a password file.
    static let fileLimit = 4096

    static func password(
        _ arguments: ParsedArguments, environment: [String: String], command: String
    ) throws -> [UInt8] {
        var password: [UInt8]
        if let file = arguments.value("--password-file") {
            password = try read(file, command: command)
        } else if let value = environment[environmentName] {
            password = Array(value.utf8)
        } else if isatty(STDIN_FILENO) == 1 {
            password = try prompt(command: command, confirm: true)
        } else {
            throw UsageError(
                "--encrypt needs a password: --password-file FILE or \(environmentName) (standard input is not a "
                    + "terminal to ask on)", command: command)
        }
        guard !password.isEmpty else { throw UsageError("the backup password is empty", command: command) }
        return password
    }

    /// For reading an encrypted backup (list, verify): what asks for the password only when the backup turns out
    /// to be encrypted: the file, the environment or the terminal (once); nil when there is none of them.
    static func forReading(
        _ arguments: ParsedArguments, environment: [String: String], command: String
    ) -> () throws -> [UInt8]? {
        let file = arguments.value("--password-file")
        return {
            if let file { return try read(file, command: command) }
            if let value = environment[environmentName] { return Array(value.utf8) }
            if isatty(STDIN_FILENO) == 1 { return try prompt(command: command, confirm: false) }
            return nil
        }
    }

    /// The file's first line (without its newline).
    private static func read(_ file: String, command: String) throws -> [UInt8] {
        let opened = file == "-" ? dup(STDIN_FILENO) : open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard opened >= 0 else {
            let code = errno  // before the message is built (building a string may allocate, and change errno)
            throw UsageError("cannot read the password file \(file): \(SystemError.phrase(code))", command: command)
        }
        let descriptor = FileDescriptor(rawValue: opened, path: file)
        let fd = descriptor.rawValue
        // Opened without blocking (a FIFO with no writer yet would hold the open); read blocking, not spinning.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        var bytes = [UInt8](repeating: 0, count: fileLimit + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                // A directory, an I/O error: never taken for an empty password.
                throw UsageError("cannot read the password file \(file): \(SystemError.phrase(code))", command: command)
            }
            guard n > 0 else { break }
            count += n
        }
        guard count <= fileLimit else {
            throw UsageError("the password file \(file) is over \(fileLimit) bytes; it holds more than a password",
                             command: command)
        }
        var line = Array(bytes[0..<count])
        if let newline = line.firstIndex(of: 0x0A) { line = Array(line[..<newline]) }
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    /// Asks on the terminal with echo off (twice, when `confirm`; the two must match).
    private static func prompt(command: String, confirm: Bool) throws -> [UInt8] {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw UsageError("cannot ask for the password on this terminal", command: command)
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        func ask(_ text: String) -> [UInt8] {
            FileHandle.standardError.write(Data(text.utf8))
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while Glibc.read(STDIN_FILENO, &byte, 1) == 1, byte != 0x0A, line.count <= fileLimit { line.append(byte) }
            FileHandle.standardError.write(Data("\n".utf8))
            return line
        }
        let first = ask("Backup password: ")
        guard confirm else { return first }
        let second = ask("Again: ")
        guard first == second else { throw UsageError("the two passwords differ", command: command) }
        return first
    }
}
