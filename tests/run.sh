#!/bin/bash
# Runs every test of rocehealth from nothing: installs the Debian packages it needs, builds
# twice (plain, and with AddressSanitizer + UndefinedBehaviorSanitizer), runs the unit tests
# in both builds, fuzzes every decoder of untrusted bytes for a bounded time (tests/fuzz), and
# runs the Soft-RoCE lab tests (QEMU guests, real verbs) with the plain build.
# Exit status is non-zero if anything fails. Run as root on Debian 12 from any directory.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=$(nproc)
stage() { echo; echo "=== $* ($(date +%T))"; }

stage "includes go one way (tests/tools/check_layers.sh)"
tests/tools/check_layers.sh

stage "dependencies"
packaging/install-deps.sh
# Debian's tools, which install-deps.sh installs, ahead of any shim on PATH: a pyenv python3 shim
# costs ~0.35 s a start, and the suites start python3 thousands of times (bench/README.md, "Test
# suite time").
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

stage "build with ASan+UBSan"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DROCEHEALTH_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
stage "unit tests under ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -L unit --output-on-failure -j"$jobs"

stage "fuzz the decoders of untrusted bytes (clang, libFuzzer + ASan + UBSan, ${FUZZ_SECONDS:-45} s each)"
tests/fuzz/run.sh

stage "build"
# Prefix /usr: the same tree builds the Debian package at the end (no fourth compile).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
# The benchmarks and rh_nl_record are not in `all`: built here so they keep compiling.
cmake --build build -j"$jobs" --target all benches rh_nl_record
stage "unit and lab tests"
# Lab tests boot QEMU guests and must not share the cores: they are RUN_SERIAL, so ctest runs
# each alone, and the unit tests side by side.
ctest --test-dir build --output-on-failure -j"$jobs"

stage "Debian package (build with prefix /usr, dpkg -i, systemd-analyze verify, purge)"
RH_DEB_BUILD="$repo/build" tests/packaging/test_deb.sh
