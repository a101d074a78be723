/// `promise-run completions zsh`: the same completions as bash, for zsh's
/// completion system (`#compdef`), with plain `compadd` calls.
enum ZshCompletion {
    static let script = #"""
    #compdef promise-run
    # zsh completion for promise-run. Install: put this file, named _promise-run,
    # in a folder of your $fpath (before compinit runs), or for this shell only:
    #   source <(promise-run completions zsh)
    _promise_run() {
      local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"
      local command="" file="" i word before
      local -a value_options
      value_options=(-j --jobs --http-connections --executor --slurm-jobs --timeout --var --var-file --env-file --report --report-output --output --color --cacert --format -f)
      for (( i = 2; i < CURRENT; i++ )); do
        word="${words[i]}"
        before="${words[i-1]}"
        if (( i > 2 )) && (( ${value_options[(Ie)$before]} )); then continue; fi
        case "$word" in
          -*) ;;
          check|graph|list|fmt|help|completions)
            if [[ -z "$command" && -z "$file" ]]; then command="$word"; elif [[ -z "$file" ]]; then file="$word"; fi ;;
          *) [[ -z "$file" ]] && file="$word" ;;
        esac
      done
      case "$prev" in
        --output) compadd -- prefixed grouped quiet; return ;;
        --color) compadd -- auto always never; return ;;
        --executor) compadd -- local slurm; return ;;
        --format|-f)
          if [[ "$command" == graph ]]; then compadd -- tree dot mermaid json; else compadd -- text json; fi
          return ;;
        --report) compadd -S '' -- json= junit= html= markdown=; return ;;
        --var-file|--env-file|--cacert) compadd -f -- ${cur}*(N); return ;;
        -j|--jobs|--http-connections|--slurm-jobs|--timeout|--var|--report-output) return ;;
      esac
      if [[ "$cur" == -* ]]; then
        local -a options
        case "$command" in
          check) options=(--format --color --quiet --help) ;;
          fmt) options=(--check --color --help) ;;
          graph|list) options=(--format --color --help) ;;
          help|completions) options=() ;;
          *) options=(--jobs --http-connections --executor --slurm-jobs --keep-going --timeout --var --var-file --env-file --report --report-output
                      --output --color --quiet --verbose --dry-run --insecure --cacert --help --version) ;;
        esac
        compadd -- $options
        return
      fi
      case "$command" in
        help) compadd -- run check graph list fmt completions; return ;;
        completions) compadd -- bash zsh fish; return ;;
      esac
      if [[ -n "$file" && "$command" != check && "$command" != list && "$command" != fmt ]]; then
        # Targets: the labels 'list --format json' marks as targets.
        local -a labels
        labels=(${(f)"$("${words[1]}" list --format json -- "$file" 2>/dev/null | awk '
          /"label":/ { line = $0; sub(/^[^:]*: "/, "", line); sub(/",?[[:space:]]*$/, "", line); label = line }
          /"target": true/ { print label }')"})
        compadd -- $labels
        return
      fi
      local -a files
      files=(${cur}*.workflow(N) ${cur}*(N/))
      compadd -f -- $files
      if [[ -z "$command" && -z "$file" ]]; then compadd -- check graph list fmt help completions; fi
    }
    if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then
      _promise_run "$@"
    else
      compdef _promise_run promise-run 2>/dev/null
    fi
    """#
}
