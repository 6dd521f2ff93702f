# Sourced by tests/cli/run.sh for tests/cli/options_cases.txt: the command
# "@options-check" runs tests/cli/options_check.sh on $BIN, a man page whose
# OPTIONS lost an entry shows that check failing, and msprobe-parse is a
# second program name.
printf '#!/bin/sh\nexec sh "%s/tests/cli/options_check.sh" "%s" "$@"\n' "$top" "$BIN" > "$W/options-check"
chmod +x "$W/options-check"
sed '/^\.B \\-\\-xlsx$/d' man/msprobe-compare.1 > "$F/bad-compare.1"
ln -s "$BIN" "$W/msprobe-parse"
