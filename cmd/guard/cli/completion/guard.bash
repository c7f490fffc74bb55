# bash completion for guard: source <(guard completion bash)
_guard_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} candidates c prefix=
  local -a args=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if [[ -n $COMP_LINE ]]; then
    # bash splits words at ':' too (COMP_WORDBREAKS); keys such as
    # svc:lint are one word to guard, so take the word from the line.
    local line=${COMP_LINE:0:COMP_POINT}
    cur=${line##*[[:space:]]}
    read -ra args <<<"${line%"$cur"}"
    args=("${args[@]:1}")
    [[ $cur == *:* ]] && prefix=${cur%"${cur##*:}"}
  fi
  if [[ $cur == -* ]]; then
    candidates=$("${COMP_WORDS[0]}" "${args[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    candidates=$("${COMP_WORDS[0]}" "${args[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=()
  while IFS= read -r c; do
    # bash replaces only what follows the last ':' of the word.
    [[ -n $c && $c == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "${c#"$prefix"}")")
  done <<<"$candidates"
}
complete -o default -F _guard_complete guard
