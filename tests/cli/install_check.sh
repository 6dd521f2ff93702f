#!/bin/sh
# make install into a temporary DESTDIR, as a user runs it (README): the
# binary and a msprobe-<name> link per command name, the man pages, the
# bash and zsh completion; the installed binary runs under each name, then
# make uninstall leaves nothing. Run by tests/cli/newcomer_cases.txt.
#
#   install_check.sh BUILD
#
# Prints "installed N files and links; uninstalled" or the differences on
# stderr, exit status 1.
set -u
BUILD=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-install.XXXXXX")
trap 'rm -rf "$D"' EXIT
fail=0
# make's flags of an outer make (make test) are not this one's
unset MAKEFLAGS MFLAGS MAKELEVEL
if ! make -s -C "$top" install BUILD="$BUILD" PREFIX=/usr DESTDIR="$D" > "$D.log" 2>&1; then
    echo "make install failed:" >&2
    tail -5 "$D.log" >&2
    rm -f "$D.log"
    exit 1
fi
rm -f "$D.log"
P=$D/usr
want() { [ -e "$1" ] || { echo "make install did not install ${1#"$D"}" >&2; fail=1; }; }
want "$P/bin/msprobe"
[ -x "$P/bin/msprobe" ] || { echo "the installed msprobe is not executable" >&2; fail=1; }
for name in $("$P/bin/msprobe" --list-commands); do
    want "$P/bin/msprobe-$name"
    want "$P/share/bash-completion/completions/msprobe-$name"
done
for page in "$top"/man/*.1; do
    want "$P/share/man/man1/$(basename "$page")"
done
want "$P/share/bash-completion/completions/msprobe"
want "$P/share/zsh/site-functions/_msprobe"
# it runs, under its own name and a command's
"$P/bin/msprobe" --version | grep -q '^msprobe ' || { echo "the installed msprobe does not run" >&2; fail=1; }
"$P/bin/msprobe-compare" --help | grep -q '^usage: msprobe compare ' ||
    { echo "msprobe-compare does not run compare" >&2; fail=1; }
bash -n "$P/share/bash-completion/completions/msprobe" || { echo "the bash completion does not parse" >&2; fail=1; }
n=$(find "$D" ! -type d | wc -l)
unset MAKEFLAGS MFLAGS MAKELEVEL
make -s -C "$top" uninstall BUILD="$BUILD" PREFIX=/usr DESTDIR="$D" > /dev/null 2>&1 ||
    { echo "make uninstall failed" >&2; fail=1; }
left=$(find "$D" ! -type d | sed "s|^$D||")
[ -z "$left" ] || { echo "make uninstall left: $left" >&2; fail=1; }
[ $fail = 0 ] && echo "installed $n files and links; uninstalled"
exit $fail
