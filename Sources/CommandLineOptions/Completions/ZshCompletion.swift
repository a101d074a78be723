/// `promise-run completions zsh`: the same completions as bash, for zsh's
/// completion system (`#compdef`), with plain `compadd` calls.
package enum ZshCompletion {
    /// The script.
    package static var script: String {
        #"""
        #compdef promise-run
        # zsh completion for promise-run. Install: put this file, named _promise-run,
        # in a folder of your $fpath (before compinit runs), or for this shell only:
        #   source <(promise-run completions zsh)
        _promise_run() {
          local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"
          local command="" file="" i word before
          local -a value_options
          value_options=(\#(CompletionWords.valueNames(separator: " ")))
          for (( i = 2; i < CURRENT; i++ )); do
            word="${words[i]}"
            before="${words[i-1]}"
            if (( i > 2 )) && (( ${value_options[(Ie)$before]} )); then continue; fi
            case "$word" in
              -*) ;;
              \#(CompletionWords.commands(separator: "|", including: true)))
                if [[ -z "$command" && -z "$file" ]]; then command="$word"; elif [[ -z "$file" ]]; then file="$word"; fi ;;
              *) [[ -z "$file" ]] && file="$word" ;;
            esac
          done
          # FORMAT=PATH (a report: junit=out.xml): after the '=', a file (a
          # folder with its slash, and no space after it).
          if [[ "$cur" == *=* && "$prev" == (\#(CompletionWords.prefixedNames(separator: "|"))) ]]; then
            local format="${cur%%=*}=" rest="${cur#*=}"
            local -a folders names
            folders=(${rest}*(N/))
            names=(${rest}*(N^/))
            compadd -S '' -- "$format"${^folders}/
            compadd -- "$format"${^names}
            return
          fi
          case "$prev" in
            \#(CompletionWords.zshValueArms)
            \#(Option.format.names.joined(separator: "|")))
              if [[ "$command" == graph ]]; then compadd -- \#(CompletionWords.graphFormats); else compadd -- \#(CompletionWords.textFormats); fi
              return ;;
            \#(CompletionWords.pathNames(separator: "|"))) compadd -f -- ${cur}*(N); return ;;
            \#(CompletionWords.textNames(separator: "|"))) return ;;
          esac
          if [[ "$cur" == -* ]]; then
            local -a options
            case "$command" in
              check) options=(\#(CompletionWords.options(for: .check))) ;;
              fmt) options=(\#(CompletionWords.options(for: .fmt))) ;;
              graph) options=(\#(CompletionWords.options(for: .graph))) ;;
              list) options=(\#(CompletionWords.options(for: .list))) ;;
              lsp) options=(\#(CompletionWords.options(for: .lsp))) ;;
              help|completions) options=() ;;
              *) options=(\#(CompletionWords.options(for: .run))) ;;
            esac
            compadd -- $options
            return
          fi
          case "$command" in
            help) compadd -- \#(CompletionWords.commands(separator: " ", including: true)); return ;;
            completions) compadd -- bash zsh fish; return ;;
          esac
          if [[ -n "$file" && "$command" != check && "$command" != list && "$command" != fmt ]]; then
            # Targets: the labels promise-run's JSON list marks as targets.
            local -a labels
            labels=(${(f)"$("${words[1]}" list \#(Option.format.spec.long) json -- "$file" 2>/dev/null | awk '
              /"label":/ { line = $0; sub(/^[^:]*: "/, "", line); sub(/",?[[:space:]]*$/, "", line); label = line }
              /"target": true/ { print label }')"})
            compadd -- $labels
            return
          fi
          local -a files
          files=(${cur}*.workflow(N) ${cur}*(N/))
          compadd -f -- $files
          if [[ -z "$command" && -z "$file" ]]; then compadd -- \#(CompletionWords.commands(separator: " ")); fi
        }
        if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then
          _promise_run "$@"
        else
          compdef _promise_run promise-run 2>/dev/null
        fi
        """#
    }
}
