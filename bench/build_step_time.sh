#!/bin/bash
# RULE_LAUNCH_COMPILE / RULE_LAUNCH_LINK wrapper (bench/build_time.sh): runs one compile or link
# step and appends "user_s sys_s wall_s output" to $RH_BUILD_STEP_LOG, so a build's CPU cost can
# be split per object and per executable.
out="?"
prev=
for a in "$@"; do
  [ "$prev" = -o ] && out=$a
  prev=$a
done
t=$(mktemp)
/usr/bin/time -f '%U %S %e' -o "$t" "$@"
rc=$?
printf '%s %s\n' "$(tail -1 "$t")" "$out" >>"${RH_BUILD_STEP_LOG:-/dev/null}"
rm -f "$t"
exit $rc
