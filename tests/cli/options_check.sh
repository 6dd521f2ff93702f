#!/bin/sh
# Checks of what the option tables generate, run by tests/cli/options_cases.txt
# through the wrapper tests/cli/options_fixtures.sh makes:
#
#   options_check.sh BIN help-width        every --help within 80 columns
#   options_check.sh BIN man CMD [PAGE]    the OPTIONS of man/msprobe-CMD.1 (or PAGE)
#                                          are the table's options, in its order
#   options_check.sh BIN man-commands      msprobe.1 lists every command; each has a page
#   options_check.sh BIN bash              the bash script parses and completes
#   options_check.sh BIN zsh               the zsh script parses and completes
#   options_check.sh BIN usage CMD...      every option the usage lines, description and epilog of
#                                          'msprobe CMD... --help' name is one CMD takes
#   options_check.sh BIN readme SECTION CMD [CMD2...]
#                                          the option table of the README's "## SECTION" lists every
#                                          option CMD shows in --help, and only options of CMD (or
#                                          CMD2...; graph+view for 'graph view')
#   options_check.sh BIN readme-commands   the README's table of commands names every command
#   options_check.sh BIN recipe [TOP]      every command has all that docs/ARCHITECTURE.md's
#                                          "Adding a subcommand" asks for (TOP: the tree whose
#                                          man pages, README, cases and unit tests are read)
#
# Exit status 0 when the check holds, 1 with the differences on stderr.
set -u
BIN=$1
what=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-opts.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0

# Does "msprobe WORDS..." take option OPT (any spelling, shown or not)?
# The parser says "unknown option" otherwise; anything else (a value
# missing, help printed) means it does.
takes() {
    opt=$1
    shift
    # shellcheck disable=SC2068
    ! "$BIN" $@ "$opt" < /dev/null 2>&1 | grep -q "unknown option '$opt'"
}

# The option words of text on stdin: a dash or two and a letter, after a
# blank, bracket, parenthesis, bar, comma or quote.
option_words() {
    grep -oE "(^|[][ (|,'])-{1,2}[A-Za-z][A-Za-z0-9_-]*" | sed -E "s/^[][ (|,']//" | sort -u
}

# The spellings of the options a command shows, from its --help-man tags.
shown_options() {
    # shellcheck disable=SC2068
    "$BIN" $@ --help-man | grep -v '^\.TP$' | sed -e 's/\\fI[^\\]*\\fR//g' -e 's/\\-/-/g' -e 's/"[^"]*"/ /g' |
        tr ' ' '\n' | grep -E '^-{1,2}[A-Za-z]' | grep -vxE -- '-h|--help|-V|--version' | sort -u
}

# The .TP tags of the OPTIONS section of a man page.
man_tags() {
    sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$1" | awk 'prev == ".TP" { print ".TP"; print } { prev = $0 }'
}

# What the bash script offers for a command line (the words bash would pass;
# the last one is completed), sorted, on one line; $T/msprobe.bash must exist.
offers() {
    (cd "$T/cwd" && bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _msprobe
                              printf "%s\n" "${COMPREPLY[@]}"' "$T/msprobe.bash" "$@") | sort | tr '\n' ' '
}

case $what in
help-width)
    n=0
    for c in "" help $("$BIN" --list-commands); do
        # shellcheck disable=SC2086
        "$BIN" $c --help > "$T/help" || { echo "msprobe $c --help failed" >&2; fail=1; }
        [ -s "$T/help" ] || { echo "msprobe $c --help printed nothing" >&2; fail=1; }
        if awk 'length($0) > 80 { print FILENAME ": " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
            "$T/help" >&2; then :; else
            echo "msprobe $c --help is wider than 80 columns" >&2
            fail=1
        fi
        n=$((n + 1))
    done
    echo "$n help texts within 80 columns" ;;
man)
    cmd=$1
    if [ "$cmd" = msprobe ]; then page=${2:-$top/man/msprobe.1}; "$BIN" --help-man > "$T/want"
    else page=${2:-$top/man/msprobe-$cmd.1}; "$BIN" "$cmd" --help-man > "$T/want"; fi
    [ -s "$T/want" ] || { echo "no --help-man output for $cmd" >&2; exit 1; }
    man_tags "$page" > "$T/got"
    if ! diff -u "$T/want" "$T/got" > "$T/diff"; then
        echo "the OPTIONS of $page differ from the option table (-: table, +: page):" >&2
        sed 1,2d "$T/diff" >&2
        fail=1
    else
        echo "$(grep -c '^\.TP' "$T/want") options of $cmd match $page"
    fi ;;
man-commands)
    "$BIN" --list-commands | cut -d' ' -f1 | sed 's/^/.TP\n.B /' > "$T/want"
    sed -n '/^\.SH COMMANDS$/,/^\.SH /p' "$top/man/msprobe.1" |
        awk 'prev == ".TP" { print ".TP"; print } { prev = $0 }' > "$T/got"
    diff -u "$T/want" "$T/got" >&2 || { echo "the COMMANDS of msprobe.1 differ from the commands" >&2; fail=1; }
    for c in $("$BIN" --list-commands | cut -d' ' -f1); do
        [ -f "$top/man/msprobe-$c.1" ] || { echo "no man page man/msprobe-$c.1" >&2; fail=1; }
    done ;;
bash)
    "$BIN" completion bash > "$T/msprobe.bash" || exit 1
    bash -n "$T/msprobe.bash" || { echo "the bash script does not parse" >&2; exit 1; }
    mkdir -p "$T/cwd/dumps" && : > "$T/cwd/a.npy"
    expect() {
        want=$1
        shift
        got=$(offers "$@")
        [ "$got" = "$want " ] || { echo "bash: '$*' offers '$got', expected '$want'" >&2; fail=1; }
    }
    expect "compare completion" msprobe comp
    expect "compare" msprobe compa
    expect "merge_result" msprobe me
    expect "--stack_mode --step --steps" msprobe compare --st
    expect "csv xlsx" msprobe compare --format ""
    expect "csv" msprobe compare --format = c
    expect "mindspore pytorch" msprobe -f ""
    expect "compare completion" msprobe -f pytorch comp
    expect "compare completion" msprobe --framework = pytorch comp
    expect "--xlsx" msprobe-compare --xl
    expect "--xlsx" msprobe compare -o --xl
    expect "dumps" msprobe compare -o ""
    expect "a.npy dumps" msprobe compare -tp ""
    expect "a.npy dumps" msprobe parse ""
    expect "--all" msprobe parse --a
    expect "-config" msprobe merge_result -con
    expect "bash zsh" msprobe completion ""
    expect "compare completion config_check" msprobe help co
    [ $fail = 0 ] && echo "bash completion ok" ;;
zsh)
    "$BIN" completion zsh > "$T/_msprobe" || exit 1
    if ! command -v zsh > /dev/null 2>&1; then
        # the script is still made; without zsh nothing more can be checked
        echo "zsh not installed: only the script was made"
        exit 0
    fi
    zsh -n "$T/_msprobe" || { echo "the zsh script does not parse" >&2; exit 1; }
    mkdir -p "$T/cwd/dumps" && : > "$T/cwd/a.npy"
    # the timeout is for a completion that hangs, not a slow one: a loaded
    # machine may take seconds to start zsh
    expect() {
        want=$1
        got=$(cd "$T/cwd" && TMPDIR=$T timeout 120 zsh -f "$top/tests/cli/zsh_complete.zsh" "$T/_msprobe" "$2" |
            tr '\n' ' ')
        [ "$got" = "$want " ] || { echo "zsh: '$2' offers '$got', expected '$want'" >&2; fail=1; }
    }
    expect "compare completion" "msprobe comp"
    expect "--stack_mode --step --steps" "msprobe compare --st"
    expect "csv xlsx" "msprobe compare --format "
    expect "csv" "msprobe compare --format=c"
    expect "mindspore pytorch" "msprobe -f "
    expect "compare completion" "msprobe -f pytorch comp"
    expect "--xlsx" "msprobe-compare --xl"
    expect "dumps" "msprobe compare -o "
    expect "bash zsh" "msprobe completion "
    [ $fail = 0 ] && echo "zsh completion ok" ;;
usage)
    # the usage block (up to the first blank line), the description (up to
    # the first heading: a line after a blank one, ending in ':') and the
    # epilog (the paragraph after the items)
    # shellcheck disable=SC2068
    "$BIN" $@ --help | awk '
        part == "" && /^$/ { part = "about"; blank = 1; next }
        part == "" { print; next }
        part == "about" && blank && /^[^ ].*:$/ { part = "items"; next }
        part == "about" { blank = /^$/; print; next }
        part == "items" && /^$/ { blank = 1; next }
        part == "items" && blank && /^[^ ]/ && !/:$/ { part = "epilog" }
        part == "items" { blank = 0; next }
        { print }' > "$T/text"
    # the top level names the options of its commands
    cmds=$*
    [ -n "$cmds" ] || cmds=$("$BIN" --list-commands | cut -d' ' -f1)
    n=0
    for w in $(option_words < "$T/text"); do
        n=$((n + 1))
        ok=0
        if [ -n "$*" ]; then
            # shellcheck disable=SC2068
            takes "$w" $@ && ok=1
        else
            for c in $cmds; do takes "$w" "$c" && ok=1; done
        fi
        takes "$w" && ok=1
        [ $ok = 1 ] || { echo "msprobe $* --help names $w, which it does not take" >&2; fail=1; }
    done
    [ $fail = 0 ] && echo "the $n options named in msprobe $* --help are its own" ;;
readme)
    section=$1
    shift
    # the first "| option | meaning |" table of the section
    awk -v s="## $section" '
        $0 == s { in_s = 1; next }
        in_s && /^## / { exit }
        in_s && /^\| option \| meaning \|/ { table = 1; next }
        table && /^\|/ { print; next }
        table { exit }' "$top/README.md" | sed 's/\\|/,/g' | cut -d'|' -f2 | grep -oE '`[^`]*`' | tr -d '`' | awk '{ print $1 }' |
        grep -E '^-{1,2}[A-Za-z]' | sort -u > "$T/readme"
    [ -s "$T/readme" ] || { echo "README: no option table under '## $section'" >&2; exit 1; }
    shown_options "$1" > "$T/shown"
    for o in $(comm -23 "$T/shown" "$T/readme"); do
        echo "README '## $section' lacks $o of msprobe $1" >&2
        fail=1
    done
    for o in $(comm -13 "$T/shown" "$T/readme"); do
        ok=0
        # shellcheck disable=SC2046
        for c in "$@"; do takes "$o" $(echo "$c" | tr + ' ') && ok=1; done
        [ $ok = 1 ] || { echo "README '## $section' lists $o, which msprobe $* does not take" >&2; fail=1; }
    done
    [ $fail = 0 ] && echo "README '## $section' lists the $(wc -l < "$T/shown") option spellings of msprobe $1" ;;
readme-commands)
    awk '/^\| subcommand \| job \|/ { t = 1; next } t && /^\|/ { print; next } t { exit }' "$top/README.md" > "$T/table"
    for c in $("$BIN" --list-commands | cut -d' ' -f1); do
        grep -qE "\`msprobe $c[\` ]|\(\`$c\`\)" "$T/table" ||
            { echo "the README's table of commands lacks $c" >&2; fail=1; }
    done
    [ $fail = 0 ] && echo "the README's table of commands names all $("$BIN" --list-commands | wc -l) commands" ;;
recipe)
    # docs/ARCHITECTURE.md, "Adding a subcommand": each item checked for
    # every command msprobe lists, one line on stderr per missing item.
    tree=${1:-$top}
    lack() { echo "$c: $*" >&2; fail=1; }
    "$BIN" completion bash > "$T/msprobe.bash" || exit 1
    mkdir -p "$T/cwd"
    # "EXIT COMMAND" for every CLI case: the command word after the case's
    # prefixes (fsize:N, term:GLOB, nobody:, -f pytorch, @msprobe-NAME ...)
    cat "$tree"/tests/cli/*cases.txt | awk 'BEGIN { FS = "|" }
        /^[ \t]*#/ || NF < 5 { next }
        {
            code = $2; gsub(/[ \t]/, "", code)
            n = split($5, w, /[ \t]+/)
            k = 1
            while (k <= n && (w[k] == "" || w[k] ~ /^(fsize|xfsz|term):./ || w[k] ~ /^(nobody|mkout):$/ ||
                              w[k] ~ /^--framework=/)) k++
            if (w[k] == "-f" || w[k] == "--framework") k += 2
            c = w[k]
            sub(/^@msprobe-/, "", c)
            print code, c
        }' > "$T/cases"
    "$BIN" --list-commands > "$T/names"
    # the README's table of subcommands (an option table's row may name a command too)
    awk '/^\| subcommand \| job \|/ { t = 1; next } t && /^\|/ { print; next } t { exit }' "$tree/README.md" > "$T/commands"
    # every descriptor a family declares is in cmd/main.c's list
    for h in "$tree"/*/commands.h; do
        for d in $(sed -n 's/^extern const command \([A-Za-z0-9_]*\)_command;$/\1/p' "$h"); do
            grep -q "^$d\( \|$\)" "$T/names" ||
                { echo "$d: $(basename "$(dirname "$h")")/commands.h declares ${d}_command, which cmd/main.c does not list" >&2; fail=1; }
        done
    done
    n=0
    for c in $(cut -d' ' -f1 "$T/names"); do
        n=$((n + 1))
        # the descriptor, <name>_command, in a family's commands.h (cmd/'s own: cmd.h)
        family=$(grep -l "^extern const command ${c}_command;" "$tree"/*/commands.h "$tree/cmd/cmd.h" 2>/dev/null | head -1)
        if [ -z "$family" ]; then
            lack "no 'extern const command ${c}_command;' in a family's commands.h"
        fi
        family=$(basename "$(dirname "${family:-x/x}")")
        # the option table: --help-man prints its tags
        "$BIN" "$c" --help-man > "$T/want" 2> /dev/null && [ -s "$T/want" ] || lack "no option table (--help-man prints nothing)"
        # the man page, its OPTIONS the table's
        page=$tree/man/msprobe-$c.1
        if [ ! -f "$page" ]; then
            lack "no man page man/msprobe-$c.1"
        else
            man_tags "$page" > "$T/got"
            cmp -s "$T/want" "$T/got" || lack "the OPTIONS of man/msprobe-$c.1 differ from the option table (options_check.sh man $c)"
        fi
        # its entry in msprobe.1's COMMANDS
        sed -n '/^\.SH COMMANDS$/,/^\.SH /p' "$tree/man/msprobe.1" | grep -qx "\.B $c" ||
            lack "no '.B $c' entry in the COMMANDS of man/msprobe.1"
        # CLI cases: one that succeeds, one that refuses bad input
        grep -qx "0 $c" "$T/cases" || lack "no CLI case (tests/cli/*_cases.txt) where it exits 0"
        grep -qx "2 $c" "$T/cases" || lack "no CLI case (tests/cli/*_cases.txt) where it refuses bad input (exit 2)"
        # a unit test of its family (cmd/'s own commands are dispatch: CLI cases)
        if [ "$family" != cmd ] && [ "$family" != x ] &&
            ! grep -lq "^#include \"$family/" "$tree"/tests/unit/test_*.c 2> /dev/null; then
            lack "no unit test (tests/unit/test_*.c) includes a header of $family/"
        fi
        # the README: a row of the table of subcommands, an example command line
        grep -Eq "^\| [^|]*\`(msprobe )?$c[\` ]" "$T/commands" ||
            lack "no row for it in the README's table of subcommands"
        grep -Eq "^    (.*[^A-Za-z0-9_-])?msprobe $c([^A-Za-z0-9_]|\$)" "$tree/README.md" ||
            lack "no example command line (indented 'msprobe $c ...') in the README"
        # completion: the name, and every spelling of its options
        case " $(offers msprobe "$(printf '%s' "$c" | cut -c1-3)") " in
        *" $c "*) ;;
        *) lack "bash completion does not offer it after 'msprobe $(printf '%s' "$c" | cut -c1-3)'" ;;
        esac
        got=" $(offers msprobe "$c" -)"
        for o in $(grep -oE '\\-(\\-)?[A-Za-z0-9_]([A-Za-z0-9_]|\\-)*' "$T/want" | sed 's/\\//g' | sort -u); do
            case "$got" in *" $o "*) ;; *) lack "bash completion does not offer $o after 'msprobe $c -'" ;; esac
        done
    done
    [ $fail = 0 ] && echo "$n commands: descriptor, option table, man page, msprobe.1 COMMANDS, CLI cases," \
        "unit test, README row and example, completion" ;;
*)
    echo "options_check.sh: unknown check '$what'" >&2
    exit 2 ;;
esac
exit $fail
