#!/bin/sh
# make check-aarch64: lib/ and its unit tests cross-built for AArch64 (the
# Kunpeng servers Ascend hosts usually are: the NEON kernels of
# model/metrics_kern.c) and run under qemu-user.
#
# Needs (Debian 12): gcc-aarch64-linux-gnu and qemu-user, and the arm64
# builds of the libraries we link: libcmocka, zlib, libyaml, SQLite,
# libxlsxwriter (and what libxlsxwriter needs: minizip, OpenSSL). Those are
# taken from a sysroot, never installed into the system: AARCH64_SYSROOT
# names a prepared one (the arm64 .debs unpacked with dpkg-deb -x: usable
# offline); by default build-aarch64/sysroot, filled on first use with
# `apt-get download` of the arm64 packages through a private apt state under
# build-aarch64/apt (the system's apt configuration and dpkg are untouched).
# Not part of make test (and not run by CI): qemu makes it slow.
#
# usage: tests/check_aarch64.sh [BUILD]      (default build-aarch64)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
BUILD=${1:-build-aarch64}
CROSS=${CROSS:-aarch64-linux-gnu-}
SYSROOT=${AARCH64_SYSROOT:-$top/$BUILD/sysroot}
DEBS="libcmocka0 libcmocka-dev zlib1g zlib1g-dev libyaml-0-2 libyaml-dev libsqlite3-0 libsqlite3-dev
      libxlsxwriter4 libxlsxwriter-dev libminizip1 libssl3"

need() {
    echo "check-aarch64: $1" >&2
    echo "check-aarch64: needs gcc-aarch64-linux-gnu and qemu-user (apt-get install gcc-aarch64-linux-gnu qemu-user)," >&2
    echo "  and a sysroot of the arm64 packages" $DEBS >&2
    echo "  (made by this script with apt-get download when Debian's archive is reachable, or given as" >&2
    echo "  AARCH64_SYSROOT=DIR: those .debs unpacked there with dpkg-deb -x)" >&2
    exit 2
}

command -v "${CROSS}gcc" >/dev/null 2>&1 || need "${CROSS}gcc not found"
QEMU=$(command -v qemu-aarch64 || command -v qemu-aarch64-static) || need "qemu-aarch64 not found"
LIBDIR=$SYSROOT/usr/lib/aarch64-linux-gnu

if [ ! -f "$LIBDIR/pkgconfig/cmocka.pc" ]; then
    [ -n "${AARCH64_SYSROOT:-}" ] && need "$SYSROOT has no usr/lib/aarch64-linux-gnu/pkgconfig/cmocka.pc"
    command -v apt-get >/dev/null 2>&1 || need "no sysroot and no apt-get to make one"
    echo "check-aarch64: fetching the arm64 libraries into $SYSROOT"
    apt=$top/$BUILD/apt
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$SYSROOT"
    set -- -q -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
        -o APT::Architectures::=arm64 -o APT::Architecture=arm64
    apt-get "$@" update >"$apt/update.log" 2>&1 || need "apt-get update for arm64 failed (see $apt/update.log)"
    # shellcheck disable=SC2086
    (cd "$apt/debs" && apt-get "$@" download $DEBS) >"$apt/download.log" 2>&1 ||
        need "apt-get download failed (see $apt/download.log)"
    for d in "$apt"/debs/*.deb; do
        dpkg-deb -x "$d" "$SYSROOT" || need "cannot unpack $d"
    done
fi

# pkg-config answers for the sysroot; the libraries' own dependencies
# (minizip, OpenSSL) are found at link time through -rpath-link and at run
# time through qemu's library path.
export PKG_CONFIG_LIBDIR="$LIBDIR/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$SYSROOT"
LINK="-Wl,-rpath-link,$LIBDIR:$SYSROOT/lib/aarch64-linux-gnu"
echo "== cross build ($BUILD, ${CROSS}gcc)"
make --no-print-directory -j"${JOBS:-2}" BUILD="$BUILD" CC="${CROSS}gcc" LDFLAGS="$LINK" units >"$BUILD.log" 2>&1 || {
    tail -30 "$BUILD.log"
    echo "check-aarch64: the cross build failed (log: $BUILD.log)"
    exit 1
}

# qemu runs the dynamic loader of the cross toolchain's libc, our libraries
# from the sysroot. Long double is software arithmetic on AArch64 and slower
# still under emulation: the 10^8-element reference of test_metrics_kern is
# cut to 10^6 (MSPROBE_TEST_BIG).
export QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
export LD_LIBRARY_PATH="$LIBDIR:$SYSROOT/lib/aarch64-linux-gnu"
export MSPROBE_TEST_BIG=${MSPROBE_TEST_BIG:-1000000}
echo "== unit tests under $(basename "$QEMU") ($BUILD)"
fail=0 n=0
for t in "$BUILD"/tests/test_*; do
    case "$t" in *.d | *.log) continue ;; esac
    [ -x "$t" ] || continue
    n=$((n + 1))
    if "$QEMU" "$t" >"$t.log" 2>&1; then
        echo "ok   $(basename "$t")"
    else
        echo "FAIL $(basename "$t") (log: $t.log)"
        tail -20 "$t.log"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "check-aarch64: no unit test was built"; exit 1; }
grep -q "instruction sets here: best neon" "$BUILD/tests/test_metrics_kern.log" 2>/dev/null ||
    { echo "FAIL test_metrics_kern did not run the NEON kernels"; fail=1; }
[ $fail = 0 ] && echo "check-aarch64: $n unit tests passed on AArch64 (NEON kernels)"
exit $fail
