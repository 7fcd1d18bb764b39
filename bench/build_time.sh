#!/bin/bash
# Build cost of rocehealth (issue 13 §4; bench/README.md, "Build"): a clean build in the default
# configuration (RelWithDebInfo, PCH on, no ccache) into a temporary directory, then the rebuild
# after touching one rule and one collector source. Prints CPU seconds (user+sys of every compile
# and link; steady when other jobs share the machine), the wall time measured, the wall time an
# idle machine would take (CPU s / jobs), beside the goals, and the 20 costliest steps.
# usage: bench/build_time.sh [JOBS]   (default 2: the goals are for 2 cores)
#   KEEP=1 keeps the build directory (clean-steps.log: every step of the clean build);
#   RULE=rules/X.cpp, COLLECTOR=collectors/Y.cpp pick the files.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${1:-2}
rule=${RULE:-rules/roce_mtu.cpp}
collector=${COLLECTOR:-collectors/sources/pcie.cpp}
out=$(mktemp -d "${TMPDIR:-/tmp}/rh-build-time.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$out"' EXIT
export CCACHE_DISABLE=1 RH_BUILD_STEP_LOG="$out/steps.log"
step="$repo/bench/build_step_time.sh"

# build LABEL: `cmake --build` with JOBS; sets cpu_s and wall_s (user+sys of all its children).
build() {
  /usr/bin/time -f '%U %S %e' -o "$out/time.txt" cmake --build "$out/build" -j"$jobs" \
    >"$out/$1.log" 2>&1 || { tail -30 "$out/$1.log"; echo "build_time: $1 build failed" >&2; exit 1; }
  read -r user sys wall_s <"$out/time.txt"
  cpu_s=$(echo "$user + $sys" | bc)
}
# verdict VALUE GOAL: "ok" or "over".
verdict() { [ "$(echo "$1 <= $2" | bc)" = 1 ] && echo ok || echo over; }

cmake -S "$repo" -B "$out/build" -DCMAKE_CXX_COMPILER_LAUNCHER="$step" \
  -DCMAKE_CXX_LINKER_LAUNCHER="$step" >"$out/configure.log"
build clean
clean_cpu=$cpu_s
clean_wall=$wall_s
idle=$(echo "scale=0; $clean_cpu / $jobs" | bc)
echo "clean build, $jobs jobs: $clean_cpu s CPU, $clean_wall s wall measured;" \
  "~$idle s wall on an idle $jobs-core machine (goal 360 s: $(verdict "$idle" 360))"
awk '{ cpu = $1 + $2; if ($4 ~ /\.(o|gch)$/) { c += cpu; nc++ } else { l += cpu; nl++ } }
  END { printf "  %d compile steps: %.0f s CPU; %d link steps: %.0f s CPU\n", nc, c, nl, l }' \
  "$out/steps.log"
cp "$out/steps.log" "$out/clean-steps.log"  # every step of the clean build (KEEP=1 keeps it)
echo "  costliest steps (CPU s = user+sys):"
awk '{ printf "  %7.2f  %s\n", $1 + $2, $4 }' "$out/steps.log" | sort -rn | head -20

for f in "$rule" "$collector"; do
  : >"$out/steps.log"
  touch "$repo/$f"
  build "touch-$(basename "$f" .cpp)"
  echo "rebuild after touch $f: $wall_s s wall, $cpu_s s CPU, $(wc -l <"$out/steps.log") steps" \
    "(goal 30 s wall: $(verdict "$wall_s" 30))"
done
