# bash completion for distdoctor: subcommands, each subcommand's flags and each flag's values, all read from
# the binary's own --help, so it never falls behind the CLI: a flag whose help shows a list ("--engine
# TEXT:{nccl,gloo}", "--tee RANK|{all,none}") completes from it (a comma list item by item), a FILE or DIR
# value completes paths, any other value (a number, an address, a name) nothing. `explain` completes finding
# ids (`distdoctor explain --list-ids`), `logs` paths; the other subcommands take no operand, so only their
# flags. After `--` (launch's command) it completes commands, then files. Installed to
# share/bash-completion/completions.

# The value kind of flag $1 in help text $2: "TEXT:{nccl,gloo}", "FILE", "INT:N"; "" for a flag without one.
_distdoctor_value_kind() {
  local line
  line=$(grep -E -- "^ +([^ ]*,)?$1(,[^ ]*)?( |$)" <<<"$2" | head -1)
  # Names, then one space and the kind ("--engine TEXT:{...}"); a flag without a value is followed by the
  # padding before its description, or by "Excludes:"/"Needs:".
  if [[ $line =~ ^\ +[^\ ]+\ ([^\ ]+) ]] && [[ ${BASH_REMATCH[1]} != *: ]]; then
    printf '%s\n' "${BASH_REMATCH[1]}"
  fi
}

# The flags of the subcommand whose help is $1; torchrun's spellings (--nproc_per_node) work but are not
# offered: the documented ones are.
_distdoctor_flags() {
  grep -oE -- '(^|[ ,])--[a-z0-9][a-z0-9_-]*' <<<"$1" | sed 's/^[ ,]//' | grep -v _ | sort -u
}

_distdoctor() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} bin=${COMP_WORDS[0]}
  local sub="" i
  COMPREPLY=()
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
  local help kind
  help=$("$bin" "$sub" --help 2>/dev/null)
  if [[ $prev == -* ]]; then
    kind=$(_distdoctor_value_kind "$prev" "$help")
    if [[ -n $kind ]]; then
      case $kind in
        *\{*\}*)  # listed values; in a comma list ("-c all_reduce,all_g") the item after the last comma
          local values=${kind#*\{} head=""
          values=${values%%\}*}
          [[ $cur == *,* ]] && head=${cur%,*},
          mapfile -t COMPREPLY < <(compgen -P "$head" -W "${values//,/ }" -- "${cur##*,}") ;;
        FILE* | PATH*) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        DIR*) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
        *) ;;  # a number, an address, a name: nothing to offer
      esac
      return 0
    fi
  fi
  local flags
  flags=$(_distdoctor_flags "$help")
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
    return 0
  fi
  case $sub in
    explain) mapfile -t COMPREPLY < <(compgen -W "$("$bin" explain --list-ids 2>/dev/null)" -- "$cur") ;;
    logs) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    launch) mapfile -t COMPREPLY < <(compgen -W "$flags --" -- "$cur") ;;
    *) mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur") ;;
  esac
}
complete -F _distdoctor distdoctor
