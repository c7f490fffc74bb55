
# Keys and services, from the state files.
complete -c guard -n '__fish_seen_subcommand_from reset trip probe' -f -a '(guard reset --generate-bash-completion 2>/dev/null)'
complete -c guard -n '__fish_seen_subcommand_from healthy unhealthy' -f -a '(guard cooldown healthy --generate-bash-completion 2>/dev/null)'
