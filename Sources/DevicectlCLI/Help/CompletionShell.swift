// CompletionShell: the shells `devicectl completion` writes a script for.

/// A shell with a completion system devicectl can describe itself to.
enum CompletionShell: String, CaseIterable {
    case bash, zsh, fish

    /// Where `make install` puts the script, below PREFIX.
    var installPath: String {
        switch self {
        case .bash: "share/bash-completion/completions/devicectl"
        case .zsh: "share/zsh/site-functions/_devicectl"
        case .fish: "share/fish/vendor_completions.d/devicectl.fish"
        }
    }
}
