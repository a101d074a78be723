/// `promise-run completions fish`: commands, options, option values,
/// `.workflow` files and target labels.
enum FishCompletion {
    static let script = #"""
    # fish completion for promise-run. Install:
    #   promise-run completions fish > ~/.config/fish/completions/promise-run.fish
    function __promise_run_command
        set -l tokens (commandline -opc)
        for token in $tokens[2..-1]
            switch $token
                case check graph list fmt help completions
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
                case -j --jobs --http-connections --executor --slurm-jobs --timeout --var --var-file --env-file --report --report-output --output --color --cacert --format -f
                    set skip 1
                case check graph list fmt help completions '-*'
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
        $program list --format json -- $file 2>/dev/null | awk '
            /"label":/ { line = $0; sub(/^[^:]*: "/, "", line); sub(/",?[[:space:]]*$/, "", line); label = line }
            /"target": true/ { print label }'
    end
    complete -c promise-run -f
    complete -c promise-run -n 'test -z (__promise_run_command); and test -z (__promise_run_file)' -a 'check graph list fmt help completions'
    complete -c promise-run -n 'test -z (__promise_run_file); and not __fish_seen_subcommand_from completions help' -a '(__promise_run_workflows)'
    complete -c promise-run -n 'test -n (__promise_run_file)' -a '(__promise_run_targets)'
    complete -c promise-run -n '__fish_seen_subcommand_from completions' -a 'bash zsh fish'
    complete -c promise-run -n '__fish_seen_subcommand_from help' -a 'run check graph list fmt completions'
    complete -c promise-run -s j -l jobs -x -d 'at most N process steps at once'
    complete -c promise-run -l http-connections -x -d 'at most N HTTP requests in flight'
    complete -c promise-run -l executor -x -a 'local slurm' -d 'where process steps run'
    complete -c promise-run -l slurm-jobs -x -d 'at most N Slurm jobs in flight'
    complete -c promise-run -l keep-going -d 'no fail-fast'
    complete -c promise-run -l timeout -x -d 'a timeout for the whole workflow'
    complete -c promise-run -l var -x -d 'NAME=VALUE: override a top-level var'
    complete -c promise-run -l var-file -r -F -d 'NAME=VALUE lines, as --var'
    complete -c promise-run -l env-file -r -F -d 'load a .env file first'
    complete -c promise-run -l report -x -a 'json= junit= html= markdown=' -d 'write a report: FORMAT=PATH'
    complete -c promise-run -l report-output -x -d 'KiB of each output in reports'
    complete -c promise-run -l output -x -a 'prefixed grouped quiet' -d 'how step output is shown'
    complete -c promise-run -l color -x -a 'auto always never' -d 'color'
    complete -c promise-run -s q -l quiet -d 'only failures and the final line'
    complete -c promise-run -s v -l verbose -d 'more output'
    complete -c promise-run -l dry-run -d 'print what would run'
    complete -c promise-run -s k -l insecure -d 'HTTPS without certificate checks'
    complete -c promise-run -l cacert -r -F -d 'trust the authorities in this PEM file'
    complete -c promise-run -s f -l format -x -a '(if test (__promise_run_command) = graph; echo tree; echo dot; echo mermaid; echo json; else; echo text; echo json; end)' -d 'output format'
    complete -c promise-run -s h -l help -d 'help'
    complete -c promise-run -s V -l version -d 'the version'
    """#
}
