// StagingOwner: the numeric owner a staged file gets (only when running as root).
import Glibc

/// A numeric owner to apply (only when running as root).
struct StagingOwner {
    let uid: uid_t
    let gid: gid_t
}
