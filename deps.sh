#!/bin/sh
# Installs what building and testing msprobe needs on Debian 12 (as root, or
# through sudo): compiler, make, pkg-config and the libraries found with it
# (zlib, libxlsxwriter, libyaml, SQLite),
# cmocka for the unit tests, cJSON and expat (the oracles of the fuzz
# harnesses' differential tests; make test replays them), clang and its
# runtime libraries (libFuzzer: the short fuzz run of make check-long), valgrind, python3 (the conformance test against
# ../shared/corpus, the include check and the terminal test use it), unzip,
# zsh (the test of the zsh completion script) and chromium (the browser test
# of graph's page, run headless).
set -e
PKGS="gcc make pkg-config zlib1g-dev libxlsxwriter-dev libyaml-dev libsqlite3-dev libcmocka-dev libcjson-dev libexpat1-dev clang libclang-rt-dev valgrind python3 unzip zsh chromium"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
missing=
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq $missing
fi
echo "deps: all of $PKGS installed"
