# bash completion for distdoctor: subcommands, each subcommand's flags and the values a flag lists
# ("{nccl,gloo}"), all read from the binary's own --help, so it never falls behind the CLI. After `--`
# (launch's command) it completes commands, then files. Installed to share/bash-completion/completions.
_distdoctor() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} bin=${COMP_WORDS[0]}
  local sub="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --)  # launch -- CMD ARGS: the user's command line
        if ((i + 1 == COMP_CWORD)); then mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        else mapfile -t COMPREPLY < <(compgen -f -- "$cur"); fi
        return 0 ;;
      -*) ;;
      *) [[ -z $sub ]] && sub=${COMP_WORDS[i]} ;;
    esac
  done
  if [[ -z $sub ]]; then
    local subs
    subs=$("$bin" --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }')
    mapfile -t COMPREPLY < <(compgen -W "$subs --help --version" -- "$cur")
    return 0
  fi
  local help
  help=$("$bin" "$sub" --help 2>/dev/null)
  if [[ $prev == --* ]]; then  # a flag's listed values: "--engine TEXT:{nccl,gloo}"
    local values
    values=$(grep -oE -- "(^|[ ,])$prev [A-Z]+:\{[^}]*\}" <<<"$help" | head -1 | sed 's/.*{//; s/}//; s/,/ /g')
    if [[ -n $values ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
      return 0
    fi
  fi
  if [[ $cur == -* ]]; then
    # torchrun's spellings (--nproc_per_node) work but are not offered: the documented ones are.
    mapfile -t COMPREPLY < <(compgen -W "$(grep -oE -- '--[a-z0-9][a-z0-9_-]*' <<<"$help" | grep -v _ | sort -u)" -- "$cur")
    return 0
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _distdoctor distdoctor
