// CommandGroup: a first word shared by several commands (`defaults`, `exclude`, `widget`) and its help.

/// The commands whose names start with one word, e.g. `defaults read|write|delete`.
struct CommandGroup {
    let name: String
    let members: [CommandSpec]

    /// The group named `name`, if at least one command's name is `name` followed by a subcommand.
    init?(named name: String, in specs: [CommandSpec]) {
        let members = specs.filter { $0.name.hasPrefix(name + " ") }
        guard !members.isEmpty else { return nil }
        self.name = name
        self.members = members
    }

    /// `devicectl defaults --help`: the subcommands with their summaries.
    var help: String {
        let subcommands = members.map { String($0.name.dropFirst(name.count + 1)) }
        var lines = [
            "Usage: devicectl \(name) \(subcommands.joined(separator: "|")) [arguments] [options]", "",
            "Subcommands:",
        ]
        let width = max(16, members.map(\.name.count).max() ?? 0) + 2
        for member in members {
            let padding = String(repeating: " ", count: width - member.name.count)
            lines.append("  " + member.name + padding + member.summary)
        }
        lines += ["", "Run 'devicectl \(name) SUBCOMMAND --help' for a subcommand's options."]
        return lines.joined(separator: "\n")
    }
}
