# fish completion for guard: guard completion fish > ~/.config/fish/completions/guard.fish
# It asks guard what comes next, as the bash and zsh scripts do; where
# guard offers nothing (after "--", or the command that guard run runs) it
# completes file names.
function __guard_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l candidates
    if string match -q -- '-*' $cur
        set candidates ($words[1] $words[2..-1] $cur --generate-bash-completion 2>/dev/null)
    else
        set candidates ($words[1] $words[2..-1] --generate-bash-completion 2>/dev/null)
    end
    if set -q candidates[1]
        printf '%s\n' $candidates
    else
        __fish_complete_path $cur
    end
end
complete -c guard -f -a '(__guard_complete)'
