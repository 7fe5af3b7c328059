// SymlinkResolver: judges every restored symlink against ROOT's final layout, following links as the kernel does.
//
// The rule. Each restored link is followed from the place it will have in ROOT, component by component, the way
// path resolution does: `.` stays, `..` goes to the parent, a name that is a restored link is replaced by where
// that link leads (so `link/..` is the parent of the link's destination, never the link's own directory). The
// walk must never climb above ROOT, never reach `DeviceLocal/` (not even to come back out), and must not end at
// ROOT itself. Every name that is not a restored link counts as a directory that exists: the staged
// directories, `DeviceLocal/`, the skeleton (`Library/SpringBoard`, the container class directories), what the
// reinstall makes and whatever a later command makes, since none of them is ever a symlink. A link whose
// resolution loops or follows more than `maxFollowed` links resolves nowhere, as in the kernel (ELOOP).
//
// Each link's target is walked once (results are kept per link), so the work is linear in the bytes of names
// and targets, which `maxBytes` caps before any link is created; `maxNodes` caps the places they name (memory).
import TarKit

/// The restored symlinks of one restore, by their place in the tree, and the walk that judges them.
final class SymlinkResolver {
    /// The kernel's MAXSYMLINKS: a path that follows more links fails with ELOOP.
    static let maxFollowed = 40
    /// Bytes of link names and targets (plus `perLinkBytes` each) one restore may hold.
    static let maxBytes = 4 << 20
    /// What one link costs in memory beyond its bytes, counted against `maxBytes`.
    static let perLinkBytes = 96
    /// Distinct places (parent and name) the links and their walks may name: about 40 bytes each.
    static let maxNodes = 1 << 19

    private enum State {
        case unresolved, inProgress, nowhere
        case resolved(node: Int32, followed: Int)
    }

    private struct Link {
        /// The link's path and target, as indices in `sources`.
        let path: Int32
        let target: Int32
        /// The node of the directory holding the link (where its target is resolved from).
        let parent: Int32
        var state: State
    }

    /// One name in the tree: its parent, its bytes (a range of one of `sources`), the link there if any.
    private struct Node {
        let parent: Int32
        let source: Int32
        let start: Int32
        let end: Int32
        var link: Int32 = -1
    }

    /// One link being resolved: its target's next byte, where the walk is, how many links it has followed.
    private struct Frame {
        let link: Int32
        var cursor: Int
        var node: Int32
        var followed: Int
    }

    /// The bytes names refer to: every link's path and target, and the DeviceLocal name.
    private var sources: [[UInt8]]
    /// Node 0 is ROOT (its parent is itself, never used: `..` at ROOT escapes).
    private var nodes = [Node(parent: 0, source: 0, start: 0, end: 0)]
    /// Hash of (parent, name) -> node; a key taken by another name is probed at the next value.
    private var children: [UInt64: Int32] = [:]
    private var links: [Link] = []
    private var deviceLocalNode: Int32 = 0
    /// Bytes counted against `maxBytes`.
    private(set) var bytes = 0

    /// Places past which the walk refuses (`maxNodes` unless a test says otherwise).
    let nodeLimit: Int

    /// `deviceLocal`: the top-level name no link may reach.
    init(deviceLocal: [UInt8], nodeLimit: Int = SymlinkResolver.maxNodes) {
        self.nodeLimit = nodeLimit
        sources = [deviceLocal]
        deviceLocalNode = child(of: 0, in: 0, deviceLocal.indices)!
    }

    /// The paths of the links added, in order.
    var paths: [[UInt8]] { links.map { sources[Int($0.path)] } }

    /// Records the link `path` -> `target` (before it is created). Throws when the links would take more than
    /// `maxBytes`.
    func add(_ path: MemberPath, target: [UInt8]) throws(RestoreError) {
        let cost = path.bytes.count + target.count + SymlinkResolver.perLinkBytes
        guard bytes + cost <= SymlinkResolver.maxBytes else {
            throw RestoreError.refusedMember(
                path.text,
                reason:
                    "the archive's symlinks take more than \(SymlinkResolver.maxBytes >> 20) MiB of names and targets")
        }
        bytes += cost
        let pathSource = Int32(sources.count)
        sources.append(path.bytes)
        var node: Int32 = 0
        for component in path.parent.split(separator: UInt8(ascii: "/")) {
            guard let next = child(of: node, in: pathSource, component.indices) else { throw tooMany(path.text) }
            node = next
        }
        guard let place = child(of: node, in: pathSource, path.name.indices) else { throw tooMany(path.text) }
        guard nodes[Int(place)].link < 0 else { return }  // a duplicate: creating it fails (EEXIST)
        nodes[Int(place)].link = Int32(links.count)
        sources.append(target)
        links.append(Link(path: pathSource, target: pathSource + 1, parent: node, state: .unresolved))
    }

    /// Follows every link; throws a refusal naming the first link that leaves ROOT, reaches DeviceLocal or
    /// resolves to ROOT itself.
    func check() throws(RestoreError) {
        for index in links.indices { try resolve(Int32(index)) }
    }

    private func resolve(_ start: Int32) throws(RestoreError) {
        guard case .unresolved = links[Int(start)].state else { return }
        links[Int(start)].state = .inProgress
        var frames = [Frame(link: start, cursor: 0, node: links[Int(start)].parent, followed: 1)]
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        while let top = frames.indices.last {
            let link = Int(frames[top].link)
            let source = links[link].target
            let target = sources[Int(source)]
            var start = frames[top].cursor
            while start < target.count && target[start] == slash { start += 1 }
            if start == target.count {
                let done = frames.removeLast()
                guard done.node != 0 else { throw refusal(link, MemberPathProblem.linkToRoot) }
                links[link].state = .resolved(node: done.node, followed: done.followed)
                if let below = frames.indices.last {
                    frames[below].node = done.node
                    frames[below].followed += done.followed
                    if frames[below].followed > SymlinkResolver.maxFollowed { resolveNowhere(&frames) }
                }
                continue
            }
            var end = start
            while end < target.count && target[end] != slash { end += 1 }
            frames[top].cursor = end
            let length = end - start
            if length == 1 && target[start] == dot { continue }
            if length == 2 && target[start] == dot && target[start + 1] == dot {
                guard frames[top].node != 0 else { throw refusal(link, MemberPathProblem.linkEscapes) }
                frames[top].node = nodes[Int(frames[top].node)].parent
                continue
            }
            guard let next = child(of: frames[top].node, in: source, start..<end) else {
                throw tooMany(String(decoding: sources[Int(links[link].path)], as: UTF8.self))
            }
            if next == deviceLocalNode { throw refusal(link, MemberPathProblem.linkIntoDeviceLocal) }
            let inner = nodes[Int(next)].link
            guard inner >= 0 else {
                frames[top].node = next
                continue
            }
            switch links[Int(inner)].state {
            case .resolved(let node, let followed):
                frames[top].node = node
                frames[top].followed += followed
                if frames[top].followed > SymlinkResolver.maxFollowed { resolveNowhere(&frames) }
            case .nowhere, .inProgress:
                resolveNowhere(&frames)  // following it loops or follows too many links: so does every frame
            case .unresolved:
                links[Int(inner)].state = .inProgress
                frames.append(Frame(link: inner, cursor: 0, node: links[Int(inner)].parent, followed: 1))
            }
        }
    }

    /// Every link being resolved follows the one that failed (ELOOP), so none resolves.
    private func resolveNowhere(_ frames: inout [Frame]) {
        for frame in frames { links[Int(frame.link)].state = .nowhere }
        frames.removeAll()
    }

    private func refusal(_ link: Int, _ problem: MemberPathProblem) -> RestoreError {
        let entry = links[link]
        return RestoreError.refusedMember(
            String(decoding: sources[Int(entry.path)], as: UTF8.self),
            reason: "\(problem) once followed through the restored symlinks "
                + "('\(String(decoding: sources[Int(entry.target)], as: UTF8.self))')",
            cause: RestoreCause(problem))
    }

    private func tooMany(_ member: String) -> RestoreError {
        RestoreError.refusedMember(
            member, reason: "the archive's symlinks lead through more than \(nodeLimit) distinct places")
    }

    /// The node for the name `sources[source][range]` in `parent` (made when new; nil past `nodeLimit`).
    private func child(of parent: Int32, in source: Int32, _ range: Range<Int>) -> Int32? {
        let name = sources[Int(source)][range]
        var hasher = Hasher()
        hasher.combine(parent)
        name.withUnsafeBytes { hasher.combine(bytes: $0) }
        var key = UInt64(bitPattern: Int64(hasher.finalize()))
        while let node = children[key] {
            let known = nodes[Int(node)]
            if known.parent == parent
                && sources[Int(known.source)][Int(known.start)..<Int(known.end)].elementsEqual(name)
            {
                return node
            }
            key &+= 1
        }
        guard nodes.count < nodeLimit else { return nil }
        let node = Int32(nodes.count)
        nodes.append(
            Node(parent: parent, source: source, start: Int32(range.lowerBound), end: Int32(range.upperBound)))
        children[key] = node
        return node
    }
}
