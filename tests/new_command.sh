#!/bin/sh
# A throw-away subcommand added by docs/ARCHITECTURE.md's "Adding a
# subcommand", in a copy of the tree: `msprobe hello FILE` (counts lines),
# a family folder hello/ with a sub-folder, its descriptor and option table,
# one line in cmd/main.c's list, its man page and msprobe.1 entry, CLI cases,
# a unit test and the README's row and example. Then:
#   - it builds and passes, with the Makefile and tests/lint/check_layers.py
#     untouched (both find the family by its commands.h);
#   - options_check.sh's recipe check fails, naming the item, when any item
#     is taken away (the man page first);
#   - check_layers.py fails on an upward include inside the family, a loop
#     between its sub-folders, a header declaring another folder's function,
#     an include against hello/LAYERS (and graph/LAYERS), and a folder of
#     sources with no commands.h.
# The copy reuses BUILD's objects (copied, so BUILD is never touched): only
# the new files, cmd/main.c and the links are made again.
#
#   tests/new_command.sh [BUILD]
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$top/$BUILD/msprobe" ] || { echo "FAIL: no $BUILD/msprobe (make first)"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/msprobe-newcmd.XXXXXX")
trap 'rm -rf "$W"' EXIT
R=$W/tree
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# ---- the copy: sources, and BUILD's objects with their times ----
mkdir -p "$R"
(cd "$top" && tar cf - --exclude='./build*' --exclude=./.git .) | (cd "$R" && tar xf -)
[ -d "$top/../shared" ] && ln -s "$top/../shared" "$W/shared"
mkdir -p "$R/build"
(cd "$top/$BUILD" && tar cf - --exclude='./tests/test_*' --exclude=./fuzz --exclude='*.log' .) |
    (cd "$R/build" && tar xf -)

# ---- the recipe ----
mkdir -p "$R/hello/count"
cat > "$R/hello/commands.h" <<'EOF'
/* Entry point of `msprobe hello`, for cmd/'s list of commands. */
#ifndef MSP_HELLO_COMMANDS_H
#define MSP_HELLO_COMMANDS_H

#include "base/command.h"

extern const command hello_command;

int cmd_hello(int argc, char **argv, const global_opts *g);

#endif
EOF
cat > "$R/hello/count/lines.h" <<'EOF'
/* Lines of a text. */
#ifndef MSP_HELLO_LINES_H
#define MSP_HELLO_LINES_H

#include <stddef.h>

/* Lines of data[0..n): a last line without its newline counts too. */
size_t count_lines(const unsigned char *data, size_t n);

#endif
EOF
cat > "$R/hello/count/lines.c" <<'EOF'
/* Lines of a text. */
#include "hello/count/lines.h"

#include <string.h>

size_t count_lines(const unsigned char *data, size_t n)
{
    size_t lines = 0;
    for (const unsigned char *p = data, *end = data + n; p < end; lines++) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    return lines;
}
EOF
cat > "$R/hello/cmd_hello.c" <<'EOF'
/* `msprobe hello FILE`: the lines of a file. */
#include "hello/commands.h"
#include "hello/count/lines.h"
#include "base/err.h"
#include "base/files.h"
#include "base/opts.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *file;
} cli;

static const opt options[] = {
    OPT_STRING("FILE", cli, file, "FILE", "a text file", .flags = OPT_REQUIRED | OPT_FILE),
    OPT_END(),
};

static const opts_spec spec = {
    .usage = "FILE",
    .about = "Count the lines of FILE.",
    .opts = options,
    .epilog = "Exit status: 0 done, 2 bad input or usage, 1 internal error.",
};

const command hello_command = {"hello", NULL, "count the lines of a file", &spec, cmd_hello};

int cmd_hello(int argc, char **argv, const global_opts *g)
{
    cli o;
    memset(&o, 0, sizeof o);
    opts_result r = opts_parse(&spec, argc, argv, &o, 0, NULL);
    if (r != OPTS_RUN)
        return opts_exit_status(r);
    mapped_file f;
    if (file_load(o.file, 0, &f) != 0)
        return err_report();
    printf("%zu lines\n", count_lines(f.data, f.size));
    file_unmap(&f);
    return EXIT_OK;
}
EOF
# one line in cmd/main.c's list (and its include)
main=$R/cmd/main.c
cp "$main" "$W/main.c.orig"
sed -i -e '/^#include "cmd\/cmd.h"$/a #include "hello/commands.h"' \
    -e 's/^\(    &completion_command,\)$/    \&hello_command,\n\1/' "$main"
[ "$(grep -c 'hello' "$main")" = 2 ] || { bad "cmd/main.c: the list of commands was not found"; exit 1; }
# CLI cases and their fixture
cat > "$R/tests/cli/hello_cases.txt" <<'EOF'
# msprobe hello, in the format of cases.txt
hello counts        | 0 | - | stdout:3 lines | hello $F/hello.txt
hello missing file  | 2 | no-such.txt | - | hello $F/no-such.txt
hello no file       | 2 | the following arguments are required: FILE | - | hello
EOF
printf '# Sourced by tests/cli/run.sh: the fixture of hello_cases.txt.\nprintf "a\\nb\\nc" > "$F/hello.txt"\n' \
    > "$R/tests/cli/hello_fixtures.sh"
# a unit test
cat > "$R/tests/unit/test_hello.c" <<'EOF'
/* hello/count: lines with and without a last newline. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "hello/count/lines.h"

static void test_count_lines(void **state)
{
    (void)state;
    assert_int_equal(count_lines((const unsigned char *)"", 0), 0);
    assert_int_equal(count_lines((const unsigned char *)"a\nb\n", 4), 2);
    assert_int_equal(count_lines((const unsigned char *)"a\nb", 3), 2);
    assert_int_equal(count_lines((const unsigned char *)"\n\n", 2), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_count_lines)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
EOF
# the README: a row of the table of subcommands, a section with an example
awk '{ print } /^\| `msprobe completion` \|/ { print "| `msprobe hello` | count the lines of a file |" }' \
    "$R/README.md" > "$W/readme" && mv "$W/readme" "$R/README.md"
awk '/^## Hostile input$/ { print "## hello\n\n    msprobe hello notes.txt\n" } { print }' \
    "$R/README.md" > "$W/readme" && mv "$W/readme" "$R/README.md"

# build (only the new files, main.c and the links), then the pages from
# the table: what `msprobe hello --help-man` prints, each tag described
cd "$R" || exit 2
if ! make -j2 BUILD=build build/msprobe build/tests/test_hello build/tools/peakrss > "$W/make.log" 2>&1; then
    bad "the copy with hello/ does not build"; tail -20 "$W/make.log"; exit 1
fi
grep -q 'hello/cmd_hello.c' "$W/make.log" && ok "hello/ built with the Makefile as it is" ||
    bad "make did not compile hello/"
BIN=$R/build/msprobe
{
    printf '.TH MSPROBE\\-HELLO 1 "2026-11" "msprobe 0.1.0" "User Commands"\n.SH NAME\n'
    printf 'msprobe\\-hello \\- count the lines of a file\n.SH SYNOPSIS\n.B msprobe hello\n.I FILE\n.SH OPTIONS\n'
    "$BIN" hello --help-man | awk '{ print } prev == ".TP" { print "What it does." } { prev = $0 }'
    printf '.SH SEE ALSO\n.BR msprobe (1)\n'
} > man/msprobe-hello.1
awk '{ if (prev == ".TP" && $0 == ".B completion") print ".B hello\nCount the lines of a file. See\n.BR msprobe\\-hello (1).\n.TP"
       print; prev = $0 }' man/msprobe.1 > "$W/msprobe.1" && mv "$W/msprobe.1" man/msprobe.1

# ---- the recipe holds ----
for f in Makefile tests/lint/check_layers.py; do
    cmp -s "$f" "$top/$f" && ok "$f untouched" || bad "$f was edited"
done
out=$(python3 tests/lint/check_layers.py . 2>&1) && ok "check_layers.py passes with hello/" ||
    { bad "check_layers.py with hello/"; printf '%s\n' "$out"; }
check() { sh tests/cli/options_check.sh "$BIN" "$@"; }
out=$(check recipe 2>&1) && ok "recipe: $out" || { bad "recipe check with hello/"; printf '%s\n' "$out"; }
out=$(check man-commands 2>&1) && ok "msprobe.1 lists hello" || { bad "man-commands"; printf '%s\n' "$out"; }
build/tests/test_hello > "$W/unit.log" 2>&1 && ok "test_hello" || { bad "test_hello"; cat "$W/unit.log"; }
out=$(CLI_CASES=tests/cli/hello_cases.txt sh tests/cli/run.sh build 2>&1) && ok "hello's CLI cases" ||
    { bad "hello's CLI cases"; printf '%s\n' "$out" | tail -10; }

# ---- each item taken away: the recipe check fails and names it ----
# lacks WHAT FILE EXPECTED-TEXT COMMAND...: COMMAND changes FILE (restored after)
lacks() {
    what=$1 file=$2 want=$3
    shift 3
    cp "$file" "$W/saved"
    "$@"
    if out=$(check recipe 2>&1); then
        bad "recipe check passes without $what"
    elif printf '%s\n' "$out" | grep -qF -- "$want"; then
        ok "recipe check fails without $what: $(printf '%s\n' "$out" | grep -F -- "$want" | head -1)"
    else
        bad "recipe check without $what: expected '$want'"; printf '%s\n' "$out"
    fi
    cp "$W/saved" "$file"
}
lacks "its man page" man/msprobe-hello.1 "hello: no man page man/msprobe-hello.1" rm man/msprobe-hello.1
lacks "an option in its man page" man/msprobe-hello.1 "OPTIONS of man/msprobe-hello.1 differ" \
    sed -i '/^\.BR \\-V/,+1d' man/msprobe-hello.1
lacks "its msprobe.1 entry" man/msprobe.1 "no '.B hello' entry in the COMMANDS" sed -i '/^\.B hello$/d' man/msprobe.1
lacks "a CLI case that refuses bad input" tests/cli/hello_cases.txt "where it refuses bad input" \
    sed -i '/| 2 |/d' tests/cli/hello_cases.txt
lacks "a CLI case that succeeds" tests/cli/hello_cases.txt "where it exits 0" sed -i '/| 0 |/d' tests/cli/hello_cases.txt
lacks "its unit test" tests/unit/test_hello.c "no unit test (tests/unit/test_*.c) includes a header of hello/" \
    rm tests/unit/test_hello.c
lacks "its README row" README.md "no row for it in the README" sed -i '/^| `msprobe hello`/d' README.md
lacks "its README example" README.md "no example command line" sed -i '/^    msprobe hello /d' README.md

# ---- the family's layers ----
# layer WHAT EXPECTED-TEXT [FLAG]: check_layers.py must fail on the tree as it is
layer() {
    if out=$(python3 tests/lint/check_layers.py . ${3:-} 2>&1); then
        bad "check_layers.py passes with $1"
    elif printf '%s\n' "$out" | grep -qF -- "$2"; then
        ok "check_layers.py fails on $1: $(printf '%s\n' "$out" | grep -F -- "$2" | head -1)"
    else
        bad "check_layers.py on $1: expected '$2'"; printf '%s\n' "$out"
    fi
}
cp hello/count/lines.h "$W/lines.h"
sed -i 's|^#include <stddef.h>$|#include "hello/commands.h"\n&|' hello/count/lines.h
layer "a sub-folder including its family's top" "hello/count/lines.h: upward include of hello/commands.h"
cp "$W/lines.h" hello/count/lines.h
mkdir -p hello/text
printf '#include "hello/count/lines.h"\n' > hello/text/text.h
printf '#include "hello/text/text.h"\n' > hello/count/extra.h
layer "two sub-folders including each other" "hello/: sub-folders include each other: count -> text -> count"
printf 'count\ntext\n' > hello/LAYERS
layer "an include against hello/LAYERS" "hello/count/extra.h: upward include of hello/text/text.h (count < text in hello/LAYERS)"
printf 'text\n' > hello/LAYERS
layer "a sub-folder missing from hello/LAYERS" "hello/count/lines.h: hello/count/ is not listed in hello/LAYERS"
printf 'count\ntext\nknown count -> text\n' > hello/LAYERS
out=$(python3 tests/lint/check_layers.py . 2>&1) &&
    printf '%s\n' "$out" | grep -qF "known (being removed, hello/LAYERS): hello/count/extra.h: upward include" &&
    ok "a known arrow is reported and does not fail" || { bad "a known arrow"; printf '%s\n' "$out"; }
layer "a known arrow under --strict" "hello/count/extra.h: upward include" --strict
rm -r hello/text hello/count/extra.h hello/LAYERS
printf 'int hello_words(void);\n' >> hello/count/lines.h
printf 'int hello_words(void)\n{\n    return 0;\n}\n' >> hello/cmd_hello.c
layer "a header declaring another folder's function" \
    "hello/count/lines.h: declares hello_words(), which hello/cmd_hello.c defines"
cp "$W/lines.h" hello/count/lines.h
sed -i '/^int hello_words(void)$/,$d' hello/cmd_hello.c
# the families as they are: compare/ and graph/ in stages
cp graph/model/steps.h "$W/steps.h"
sed -i '0,/^#include "/s||#include "graph/write/vis.h"\n&|' graph/model/steps.h
layer "an upward include between graph's stages" \
    "graph/model/steps.h: upward include of graph/write/vis.h (model < write in graph/LAYERS)"
cp "$W/steps.h" graph/model/steps.h
mkdir -p stray && printf 'int stray(void);\n' > stray/stray.h
layer "a folder of sources with no commands.h" "stray/ holds C sources but no commands.h"
rm -r stray
out=$(python3 tests/lint/check_layers.py . 2>&1) && ok "check_layers.py passes again" ||
    { bad "check_layers.py after the layer cases"; printf '%s\n' "$out"; }

# ---- a family whose descriptor cmd/main.c does not list ----
cp "$W/main.c.orig" "$main"
if make -j2 BUILD=build build/msprobe > "$W/make2.log" 2>&1; then
    if out=$(check recipe 2>&1); then
        bad "recipe check passes with hello_command not in cmd/main.c's list"
    else
        printf '%s\n' "$out" | grep -qF "hello: hello/commands.h declares hello_command, which cmd/main.c does not list" &&
            ok "recipe check fails when cmd/main.c does not list hello_command" ||
            { bad "recipe check without the main.c line"; printf '%s\n' "$out"; }
    fi
else
    bad "the copy without the main.c line does not build"; tail -5 "$W/make2.log"
fi

[ $fail = 0 ] && echo "a new subcommand by the recipe: ok" || echo "a new subcommand by the recipe: FAILED"
exit $fail
