# Sourced by tests/cli/run.sh for tests/cli/options_cases.txt: the command
# "@options-check" runs tests/cli/options_check.sh on $BIN, a man page whose
# OPTIONS lost an entry shows that check failing, trees that lack a man
# page or a README row show the recipe check failing, and msprobe-parse is
# a second program name.
printf '#!/bin/sh\nexec sh "%s/tests/cli/options_check.sh" "%s" "$@"\n' "$top" "$BIN" > "$W/options-check"
chmod +x "$W/options-check"
sed '/^\.B \\-\\-xlsx$/d' man/msprobe-compare.1 > "$F/bad-compare.1"
ln -s "$BIN" "$W/msprobe-parse"
# the tree as it is, but for parse's man page (no-page) or graph's README row (no-row)
for t in no-page no-row; do
    mkdir -p "$F/$t"
    for f in "$top"/*; do ln -s "$f" "$F/$t/"; done
done
rm "$F/no-page/man" && mkdir "$F/no-page/man" && cp man/*.1 "$F/no-page/man/" && rm "$F/no-page/man/msprobe-parse.1"
rm "$F/no-row/README.md" && grep -v '^| `msprobe graph`' README.md > "$F/no-row/README.md"
