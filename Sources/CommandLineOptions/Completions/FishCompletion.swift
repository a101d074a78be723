/// `promise-run completions fish`: commands, options, option values,
/// `.workflow` files and target labels.
package enum FishCompletion {
    /// The script.
    package static var script: String {
        #"""
        # fish completion for promise-run. Install:
        #   promise-run completions fish > ~/.config/fish/completions/promise-run.fish
        function __promise_run_command
            set -l tokens (commandline -opc)
            for token in $tokens[2..-1]
                switch $token
                    case \#(CompletionWords.commands(separator: " ", including: true))
                        echo $token
                        return
                    case '-*'
                    case '*'
                        return
                end
            end
        end
        function __promise_run_file
            set -l tokens (commandline -opc)
            set -l skip 0
            for token in $tokens[2..-1]
                if test $skip = 1
                    set skip 0
                    continue
                end
                switch $token
                    case \#(CompletionWords.valueNames(separator: " "))
                        set skip 1
                    case \#(CompletionWords.commands(separator: " ", including: true)) '-*'
                    case '*'
                        echo $token
                        return
                end
            end
        end
        function __promise_run_workflows
            set -l current (commandline -ct)
            for name in $current*.workflow $current*/
                echo $name
            end
        end
        function __promise_run_targets
            set -l file (__promise_run_file)
            test -n "$file"; or return
            set -l command (__promise_run_command)
            contains -- "$command" check list fmt help completions; and return
            set -l program (commandline -opc)[1]
            $program list \#(Option.format.spec.long) json -- $file 2>/dev/null | awk '
                /"label":/ { line = $0; sub(/^[^:]*: "/, "", line); sub(/",?[[:space:]]*$/, "", line); label = line }
                /"target": true/ { print label }'
        end
        complete -c promise-run -f
        complete -c promise-run -n 'test -z (__promise_run_command); and test -z (__promise_run_file)' -a '\#(CompletionWords.commands(separator: " "))'
        complete -c promise-run -n 'test -z (__promise_run_file); and not __fish_seen_subcommand_from completions help' -a '(__promise_run_workflows)'
        complete -c promise-run -n 'test -n (__promise_run_file)' -a '(__promise_run_targets)'
        complete -c promise-run -n '__fish_seen_subcommand_from completions' -a 'bash zsh fish'
        complete -c promise-run -n '__fish_seen_subcommand_from help' -a '\#(CompletionWords.commands(separator: " ", including: true))'
        \#(CompletionWords.fishLines)
        """#
    }
}
