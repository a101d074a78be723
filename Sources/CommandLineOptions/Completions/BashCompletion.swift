/// `promise-run completions bash`: commands, options, option values,
/// `.workflow` files, and after a workflow file its target labels (read
/// through `promise-run list --format json`).
package enum BashCompletion {
    /// The script.
    package static var script: String {
        #"""
        # bash completion for promise-run. Install:
        #   promise-run completions bash > ~/.local/share/bash-completion/completions/promise-run
        # or, for this shell only:  source <(promise-run completions bash)
        _promise_run() {
            local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
            local command="" file="" i word before
            for ((i = 1; i < COMP_CWORD; i++)); do
                word="${COMP_WORDS[i]}"
                before="${COMP_WORDS[i-1]}"
                # bash splits NAME=VALUE at '=' (COMP_WORDBREAKS): '=' and what follows it are one value.
                if [ "$word" = "=" ] || [ "$before" = "=" ]; then continue; fi
                case "$before" in
                    \#(CompletionWords.valueNames(separator: "|")))
                        [ "$i" -gt 1 ] && continue ;;
                esac
                case "$word" in
                    -*) ;;
                    \#(CompletionWords.commands(separator: "|", including: true)))
                        if [ -z "$command" ] && [ -z "$file" ]; then command="$word"; elif [ -z "$file" ]; then file="$word"; fi ;;
                    *) [ -z "$file" ] && file="$word" ;;
                esac
            done
            # FORMAT=PATH (a report: junit=out.xml): after the '=', a file.
            if { [ "$cur" = "=" ] && [[ "${COMP_WORDS[COMP_CWORD-2]}" == @(\#(CompletionWords.prefixedNames(separator: "|"))) ]]; } ||
               { [ "$prev" = "=" ] && [[ "${COMP_WORDS[COMP_CWORD-3]}" == @(\#(CompletionWords.prefixedNames(separator: "|"))) ]]; }; then
                [ "$cur" = "=" ] && cur=""
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -f -- "$cur"))
                return
            fi
            [ "$prev" = "=" ] && return
            case "$prev" in
                \#(CompletionWords.bashValueArms)
                \#(Option.format.names.joined(separator: "|")))
                    if [ "$command" = graph ]; then
                        COMPREPLY=($(compgen -W "\#(CompletionWords.graphFormats)" -- "$cur"))
                    else
                        COMPREPLY=($(compgen -W "\#(CompletionWords.textFormats)" -- "$cur"))
                    fi
                    return ;;
                \#(CompletionWords.pathNames(separator: "|")))
                    compopt -o filenames 2>/dev/null
                    COMPREPLY=($(compgen -f -- "$cur"))
                    return ;;
                \#(CompletionWords.textNames(separator: "|"))) return ;;
            esac
            if [[ "$cur" == -* ]]; then
                local options
                case "$command" in
                    check) options="\#(CompletionWords.options(for: .check))" ;;
                    fmt) options="\#(CompletionWords.options(for: .fmt))" ;;
                    graph) options="\#(CompletionWords.options(for: .graph))" ;;
                    list) options="\#(CompletionWords.options(for: .list))" ;;
                    lsp) options="\#(CompletionWords.options(for: .lsp))" ;;
                    help|completions) options="" ;;
                    *) options="\#(CompletionWords.options(for: .run))" ;;
                esac
                COMPREPLY=($(compgen -W "$options" -- "$cur"))
                return
            fi
            case "$command" in
                help) COMPREPLY=($(compgen -W "\#(CompletionWords.commands(separator: " ", including: true))" -- "$cur")); return ;;
                completions) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
            esac
            if [ -n "$file" ] && [ "$command" != check ] && [ "$command" != list ] && [ "$command" != fmt ]; then
                # Targets: the labels promise-run's JSON list marks as targets.
                local labels
                labels=$("${COMP_WORDS[0]}" list \#(Option.format.spec.long) json -- "$file" 2>/dev/null | awk '
                    /"label":/ { line = $0; sub(/^[^:]*: "/, "", line); sub(/",?[[:space:]]*$/, "", line); label = line }
                    /"target": true/ { print label }')
                COMPREPLY=($(compgen -W "$labels" -- "$cur"))
                return
            fi
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -X '!*.workflow' -- "$cur") $(compgen -d -- "$cur"))
            if [ -z "$command" ] && [ -z "$file" ]; then
                COMPREPLY+=($(compgen -W "\#(CompletionWords.commands(separator: " "))" -- "$cur"))
            fi
        }
        complete -F _promise_run promise-run
        """#
    }
}
