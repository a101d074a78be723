/// `promise-run completions bash`: commands, options, option values,
/// `.workflow` files, and after a workflow file its target labels (read
/// through `promise-run list --format json`).
enum BashCompletion {
    static let script = #"""
    # bash completion for promise-run. Install:
    #   promise-run completions bash > ~/.local/share/bash-completion/completions/promise-run
    # or, for this shell only:  source <(promise-run completions bash)
    _promise_run() {
        local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
        local command="" file="" i word before
        for ((i = 1; i < COMP_CWORD; i++)); do
            word="${COMP_WORDS[i]}"
            before="${COMP_WORDS[i-1]}"
            case "$before" in
                -j|--jobs|--http-connections|--executor|--slurm-jobs|--timeout|--var|--var-file|--env-file|--report|--report-output|--output|--color|--cacert|--format|-f)
                    [ "$i" -gt 1 ] && continue ;;
            esac
            case "$word" in
                -*) ;;
                check|graph|list|fmt|help|completions)
                    if [ -z "$command" ] && [ -z "$file" ]; then command="$word"; elif [ -z "$file" ]; then file="$word"; fi ;;
                *) [ -z "$file" ] && file="$word" ;;
            esac
        done
        case "$prev" in
            --output) COMPREPLY=($(compgen -W "prefixed grouped quiet" -- "$cur")); return ;;
            --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
            --executor) COMPREPLY=($(compgen -W "local slurm" -- "$cur")); return ;;
            --format|-f)
                if [ "$command" = graph ]; then
                    COMPREPLY=($(compgen -W "tree dot mermaid json" -- "$cur"))
                else
                    COMPREPLY=($(compgen -W "text json" -- "$cur"))
                fi
                return ;;
            --report)
                COMPREPLY=($(compgen -W "json= junit= html= markdown=" -- "$cur"))
                compopt -o nospace 2>/dev/null
                return ;;
            --var-file|--env-file|--cacert)
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -f -- "$cur"))
                return ;;
            -j|--jobs|--http-connections|--slurm-jobs|--timeout|--var|--report-output) return ;;
        esac
        if [[ "$cur" == -* ]]; then
            local options
            case "$command" in
                check) options="--format --color --quiet --help" ;;
                fmt) options="--check --color --help" ;;
                graph|list) options="--format --color --help" ;;
                help|completions) options="" ;;
                *) options="--jobs --http-connections --executor --slurm-jobs --keep-going --timeout --var --var-file --env-file --report --report-output --output --color --quiet --verbose --dry-run --insecure --cacert --help --version" ;;
            esac
            COMPREPLY=($(compgen -W "$options" -- "$cur"))
            return
        fi
        case "$command" in
            help) COMPREPLY=($(compgen -W "run check graph list fmt completions" -- "$cur")); return ;;
            completions) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
        esac
        if [ -n "$file" ] && [ "$command" != check ] && [ "$command" != list ] && [ "$command" != fmt ]; then
            # Targets: the labels 'list --format json' marks as targets.
            local labels
            labels=$("${COMP_WORDS[0]}" list --format json -- "$file" 2>/dev/null | awk '
                /"label":/ { line = $0; sub(/^[^:]*: "/, "", line); sub(/",?[[:space:]]*$/, "", line); label = line }
                /"target": true/ { print label }')
            COMPREPLY=($(compgen -W "$labels" -- "$cur"))
            return
        fi
        compopt -o filenames 2>/dev/null
        COMPREPLY=($(compgen -f -X '!*.workflow' -- "$cur") $(compgen -d -- "$cur"))
        if [ -z "$command" ] && [ -z "$file" ]; then
            COMPREPLY+=($(compgen -W "check graph list fmt help completions" -- "$cur"))
        fi
    }
    complete -F _promise_run promise-run
    """#
}
