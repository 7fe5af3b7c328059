// RestorePlan: what a backup without devicectl's manifest tells the restore to do once its members are staged.
import DeviceKit

/// A MobileSync backup names its containers by identifier, not UUID, and lists apps in its plists rather than a
/// devicectl manifest. Its source (`MobileSyncMemberReader`) stages each container under a new UUID and hands
/// the restore this plan after the last member: the containers to adopt (their metadata written, as
/// containermanagerd would), the apps to reinstall (a `Manifest.Header` built from the backup's plists, or from
/// devicectl's own manifest kept in the backup), what was not placed, and warnings.
struct RestorePlan {
    /// A staged container directory (`<kind's directory>/<uuid>`) and who it belongs to.
    struct StagedContainer: Equatable {
        let kind: ContainerKind
        let identifier: String
        let uuid: String
        /// An extension's app, when the identifier says it (`<bundle id>.NudgeWidget`).
        let parent: String?
    }

    var containers: [StagedContainer] = []
    /// The apps, groups and widgets to reinstall, and the source device.
    var header: Manifest.Header
    /// Rows of domains outside `/var/mobile`, by domain family.
    var notPlaced: [String: UInt64] = [:]
    var warnings: [String] = []
}
