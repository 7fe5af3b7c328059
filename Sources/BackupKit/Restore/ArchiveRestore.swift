// ArchiveRestore: `devicectl restore`: an archive onto a fresh device root, all or nothing.
import CCrypto
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit

/// Restores archives onto fresh device roots.
public enum ArchiveRestore {
    /// Restores `archive` (a path, or `-` for stdin) onto `root`, which must be a fresh device, an empty
    /// directory or absent (then initialised as a new device with its own identity).
    ///
    /// Every member is created inside a staging directory in ROOT through descriptors opened with
    /// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`; every file is hashed while written and checked against
    /// the manifest; the manifest's apps are reinstalled; only then is the staged tree moved into ROOT. On any
    /// failure (a refused member, a digest mismatch, a damaged or truncated archive, no space, an I/O error,
    /// SIGINT/SIGTERM) the staging directory is removed and ROOT is as it was; the error says why.
    public static func restore(archive: String, root: String, options: RestoreOptions = RestoreOptions()) throws
        -> RestoreReport
    {
        let started = Date()
        // SHA-256 needs no OpenSSL configuration; not loading openssl.cnf keeps ~0.7 MB of libcrypto untouched.
        // (A no-op when OpenSSL was already initialised by this process.)
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil)
        let reader: any FormatSource
        do {
            reader = try ArchiveSource.open(archive, password: options.password, interruption: options.interruption)
        } catch let error as ArchiveReaderError {
            throw translate(error)
        }
        let destination: RestoreRoot
        do {
            destination = try RestoreRoot.prepare(
                root, now: options.now, interruption: options.interruption, waiting: options.waitingForDevice ?? {})
        } catch {
            try? reader.close()
            throw error
        }
        var staging: StagingDirectory?
        do {
            staging = try StagingDirectory(root: destination.descriptor, rootPath: destination.path)
            // Flags on the target device, read under its lock before any member (passing over the staging
            // directory): what they mark is not restored over.
            let flagged =
                destination.origin == .freshDevice
                ? try TargetExclusions.scan(ContainedRoot(opening: destination.path)) : .none
            let session = try RestoreSession(reader: reader, staging: staging!, options: options)
            session.targetExclusions = flagged
            session.warnings.staleStaging = destination.recovered
            try session.extractAll()
            try session.finish(rootDescriptor: destination.descriptor)
            var report = session.report
            report.initialized = destination.origin != .freshDevice
            report.archiveBytes = reader.inputBytes
            report.warnings = session.warnings.messages
            report.skipped = session.skippedPaths
            do {
                try logEvents(report, archive: archive, root: destination.path, now: options.now)
            } catch {
                // The log is written before the device moves into place: its path is the staging one, not the
                // user's, so the warning names the log by its place in ROOT and says only the cause.
                report.warnings.append(
                    "restored, but could not append to the device's event log (\(root)/"
                        + "DeviceLocal/events.jsonl): \(Self.cause(error))")
            }
            do {
                try staging?.remove()
            } catch {
                report.warnings.append(
                    "restored, but devicectl's working files in \(root) could not be removed "
                        + "(\(Self.cause(error))); the next restore removes them")
            }
            // Onto an absent ROOT the device was built beside it: one rename makes it ROOT (all or nothing).
            try session.checkInterruption()
            try destination.commit()
            try? reader.close()
            destination.unlock()
            report.seconds = Date().timeIntervalSince(started)
            return report
        } catch {
            try? staging?.remove()
            destination.undo()
            try? reader.close()
            throw translate(error)
        }
    }

    /// Appends `init` (when the restore made the device) and `restore` to the device's event log.
    static func logEvents(_ report: RestoreReport, archive: String, root: String, now: Date) throws {
        let device = try Device.open(root)
        let log = EventLog(device: device)
        if report.initialized {
            try log.append(DeviceEvent(time: now, type: "init", details: ["udid": try device.identity().udid]))
        }
        var details = [
            "archive": archive, "files": String(report.counts.files), "bytes": String(report.counts.bytes),
            "verified": String(report.verified), "apps": report.apps.joined(separator: ","),
        ]
        if let source = report.sourceUDID { details["source"] = source }
        try log.append(DeviceEvent(time: now, type: "restore", details: details))
    }

    /// An error's cause for a warning: a failed call's `strerror` (`no space left on device`), else its text.
    static func cause(_ error: any Error) -> String {
        guard let error = error as? SystemError else { return "\(error)" }
        return error.phrase
    }

    /// Reader and system errors become restore errors that say nothing was changed.
    static func translate(_ error: any Error) -> any Error {
        switch error {
        case let error as RestoreError:
            return error
        case ArchiveReaderError.interrupted(let signal):
            return RestoreError.interrupted(signal: signal)
        case ArchiveReaderError.dataTooLarge(let member, let total, let limit):
            return RestoreError.noSpace(
                "member '\(member)': the archive's files add up to \(total) bytes or more, but only \(limit) may be "
                    + "written (free space on ROOT's file system, or the limit)")
        case let error as ArchiveReaderError:
            return RestoreError.damaged(error)
        case let error as SystemError:
            // A full disk too: the call and the file stay apart, for the command to word (devicectl names the
            // file by its path in the archive, never the staging directory's).
            return RestoreError.system(error)
        case let error as DeviceError:
            return RestoreError.device(error)
        default:
            return RestoreError.failed(RestoreCause(error))
        }
    }
}
