#!/usr/bin/env bash
# `cmake --install` (what `make install` runs) into a DESTDIR: the binary, its debug info where gdb looks
# (bin/.debug), the man page made from the help (it names every subcommand and the exit codes), the bash
# completion (it completes subcommands, a subcommand's flags and a flag's listed values from the installed
# binary) and the Slurm prolog; the installed binary runs and names its version and commit.
# Usage: tests/install_test.sh path/to/distdoctor   (the build dir is the binary's directory)
set -u
BIN=$(realpath "${1:?usage: $0 path/to/distdoctor}")
build=$(dirname "$BIN")
. "$(dirname "$0")/cli_test_lib.sh"
[ -f "$build/distdoctor.1.gz" ] || cmake --build "$build" --target man >/dev/null 2>&1
check "cmake --install into a DESTDIR" 0 env DESTDIR="$T/root" cmake --install "$build" --prefix /opt/dd
root=$T/root/opt/dd
check "the binary is installed" 0 test -x "$root/bin/distdoctor"
check "the man page is installed" 0 test -s "$root/share/man/man1/distdoctor.1.gz"
check "the completion is installed" 0 test -s "$root/share/bash-completion/completions/distdoctor"
check "the Slurm prolog is installed, executable" 0 test -x "$root/share/distdoctor/slurm/distdoctor-prolog.sh"
check "the docs are installed" 0 test -s "$root/share/doc/distdoctor/slurm.md"
if [ -f "$build/distdoctor.debug" ]; then
  check "the debug info is installed beside the binary" 0 test -s "$root/bin/.debug/distdoctor.debug"
fi
check "the installed binary runs" 0 "$root/bin/distdoctor" --version
expect_out "it names the version and the commit" "(commit "
zcat "$root/share/man/man1/distdoctor.1.gz" >"$T/man.roff"
expect "the man page has its title" "$T/man.roff" ".TH DISTDOCTOR"
for sub in check facts explain logs bench launch; do
  expect "the man page documents '$sub'" "$T/man.roff" "distdoctor $sub"
done
expect "the man page documents a subcommand's flag" "$T/man.roff" "fail-on"
expect "the man page lists the exit codes" "$T/man.roff" "EXIT STATUS"
complete_words() {  # the words completed for the command line "$@" (the last word is the one being typed)
  PATH="$root/bin:$PATH" bash -c '
    source "$0"
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _distdoctor; printf "%s\n" "${COMPREPLY[@]}"' \
    "$root/share/bash-completion/completions/distdoctor" "$@"
}
complete_words distdoctor ch >"$T/c1"
expect "completion: subcommands" "$T/c1" "check"
complete_words distdoctor check --fail >"$T/c2"
expect "completion: a subcommand's flags" "$T/c2" "--fail-on"
complete_words distdoctor bench --check "" >"$T/c3"
expect "completion: a flag's listed values" "$T/c3" "first"
complete_words distdoctor launch -- pytho >"$T/c4"
check "completion after --: commands, not our flags" 1 grep -q -- "--" "$T/c4"
cli_finish install_test
