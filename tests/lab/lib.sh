# shellcheck shell=bash
# lib.sh -- helpers for Soft-RoCE lab test scripts (source it from bash).
#
#   . "$(dirname "$0")/lib.sh"
#   lab_up 2                      # boots g1, g2 in a private lab dir; torn down on exit
#   lab_exec g1 -- ibv_devinfo -d rxe0
#   id=$(lab spawn g1 -- ib_write_lat ...); lab wait "$id"
#   assert_rc 0 lab_exec g2 -- true
#
# Exit codes: 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE 77).  A lab that
# cannot boot is a FAILURE; it is a skip only when RH_LAB_ALLOW_SKIP=1.
# RH_LAB_KEEP=1 keeps the lab dir (console logs, cmd files) even on success;
# it is always kept on failure and its path printed.

RH_LAB_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RH_REPO=$(cd "$RH_LAB_HERE/../.." && pwd)
RH_LAB_SH=$RH_LAB_HERE/lab.sh
_rh_failed=0
_rh_own_dir=0

log()  { echo "[$(date +%T)] $*" >&2; }
fail() { echo "FAIL: $*" >&2; _rh_failed=1; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
pass() { echo "PASS: ${1:-$(basename "$0")}" >&2; }

# Lab unusable: fail, or skip when explicitly allowed.
lab_unavailable() {
  if [ "${RH_LAB_ALLOW_SKIP:-0}" = 1 ]; then skip "lab unavailable: $*"; fi
  fail "lab unavailable: $* (set RH_LAB_ALLOW_SKIP=1 to skip instead)"
}

# Cheap checks before booting anything.
lab_preflight() {
  [ "$(id -u)" = 0 ] || lab_unavailable "must run as root"
  local c
  for c in qemu-system-x86_64 busybox cpio gzip modinfo; do
    command -v "$c" >/dev/null || lab_unavailable "$c not installed (apt-get install $(tr '\n' ' ' <"$RH_LAB_HERE/deps.txt"))"
  done
  ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1 || lab_unavailable "no /boot/vmlinuz-*-amd64 (apt-get install linux-image-amd64)"
  for c in ibv_devinfo ib_write_lat rdma; do
    command -v "$c" >/dev/null || lab_unavailable "$c not installed (see tests/lab/deps.txt)"
  done
}

lab() { "$RH_LAB_SH" --dir "$RH_LAB_DIR" "$@"; }
lab_exec() { lab exec "$@"; }
lab_ip()  { lab ip "$1"; }
lab_gid() { lab gid "$1"; }

_rh_args=("$@")  # the test script's arguments, for the one retry below
_rh_cleanup() {
  local rc=$?
  [ -n "${RH_LAB_DIR:-}" ] && "$RH_LAB_SH" --dir "$RH_LAB_DIR" down >/dev/null 2>&1
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then _rh_failed=1; fi
  # QEMU's socket netdev under TCG load sometimes stops draining a guest's virtio-net TX queue
  # for good (the guest kernel logs "NETDEV WATCHDOG ... transmit queue 0 timed out" every 5 s
  # and its network is dead). That is the emulator, not rocehealth: a test that failed with it
  # in a guest's console is run once more on a fresh lab (tests/lab/README.md).
  if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -z "${RH_LAB_RETRIED:-}" ] && [ -n "${RH_LAB_DIR:-}" ] &&
     grep -qs "NETDEV WATCHDOG" "$RH_LAB_DIR"/g*/console.log; then
    echo "lab: a guest's virtio-net TX queue stalled in QEMU ($(grep -ls "NETDEV WATCHDOG" "$RH_LAB_DIR"/g*/console.log | tr '\n' ' '))" \
         "- an emulator fault; kept $RH_LAB_DIR and running $(basename "$0") once more" >&2
    [ $_rh_own_dir = 1 ] && unset RH_LAB_DIR
    RH_LAB_RETRIED=1 exec bash "$0" "${_rh_args[@]}"
  fi
  if [ $_rh_own_dir = 1 ]; then
    if [ $_rh_failed = 0 ] && [ "${RH_LAB_KEEP:-0}" != 1 ]; then rm -rf "$RH_LAB_DIR"
    else echo "lab dir kept for debugging: $RH_LAB_DIR" >&2; fi
  fi
  exit $rc
}

# lab_up N: boot N guests in a private dir (or $RH_LAB_DIR if set); they are
# powered off when the script exits, and by a watchdog if it is killed.
lab_up() {
  lab_preflight
  if [ -z "${RH_LAB_DIR:-}" ]; then
    RH_LAB_DIR=$(mktemp -d /tmp/rh-lab.XXXXXX) || fail "mktemp"
    _rh_own_dir=1
  fi
  export RH_LAB_DIR
  trap _rh_cleanup EXIT
  trap 'exit 130' INT TERM
  local t0=$SECONDS
  RH_LAB_OWNER_PID=$$ "$RH_LAB_SH" --dir "$RH_LAB_DIR" up "$1" >/dev/null \
    || lab_unavailable "lab.sh up $1 failed (logs in $RH_LAB_DIR)"
  RH_LAB_BOOT_S=$((SECONDS - t0))
  log "lab up: $1 guests in ${RH_LAB_BOOT_S}s ($RH_LAB_DIR)"
}

# lab_wait_port NAME PORT [TIMEOUT]: wait until a TCP port listens in the guest.
lab_wait_port() {
  lab exec "$1" --timeout "${3:-60}" -- bash -c \
    "until ss -Hltn 'sport = :$2' | grep -q .; do sleep 0.1; done" \
    || fail "$1: nothing listening on TCP port $2 within ${3:-60}s"
}

# ---- assertions ----
assert_eq() {        # assert_eq EXPECTED ACTUAL [MSG]
  [ "$1" = "$2" ] || fail "${3:-assert_eq}: expected '$1', got '$2'"
}
assert_contains() {  # assert_contains HAYSTACK NEEDLE [MSG]
  case $1 in *"$2"*) ;; *) fail "${3:-assert_contains}: '$2' not found in: $1" ;; esac
}
assert_match() {     # assert_match STRING ERE [MSG]
  [[ $1 =~ $2 ]] || fail "${3:-assert_match}: '$1' does not match /$2/"
}
assert_rc() {        # assert_rc EXPECTED CMD...  (CMD's output passes through)
  local want=$1; shift
  "$@"; local rc=$?
  [ "$rc" = "$want" ] || fail "exit status $rc (expected $want): $*"
}
assert_ok() { assert_rc 0 "$@"; }

# perftest_pair TOOL SIZE ITERS [EXTRA...]: server on g1, client on g2.
# Prints the client's output; fails the test on error.
_rh_pt_port=18515
perftest_pair() {
  local tool=$1 size=$2 iters=$3; shift 3
  local gs gc; gs=$(lab_gid g1) && gc=$(lab_gid g2) || fail "no gid index"
  local port=$((_rh_pt_port++))
  local sid; sid=$(lab spawn g1 -- "$tool" -d rxe0 -x "$gs" -F -p "$port" -s "$size" -n "$iters" "$@") \
    || fail "cannot start $tool server on g1"
  lab_wait_port g1 "$port"
  local out; out=$(lab exec g2 --timeout 300 -- "$tool" -d rxe0 -x "$gc" -F -p "$port" -s "$size" -n "$iters" "$@" "$(lab_ip g1)")
  local rc=$?
  local sout; sout=$(lab wait "$sid" --timeout 60 2>&1); local src=$?
  [ $rc = 0 ] || { echo "$out"; echo "server: $sout" >&2; fail "$tool -s $size client exit $rc"; }
  [ $src = 0 ] || { echo "$sout" >&2; fail "$tool -s $size server exit $src"; }
  echo "$out"
}

# rocehealth_bin: copies the host-built agent binary ($RH_BIN, which ctest sets, else
# <repo>/build/agent/rocehealth) into the lab dir once and prints the copy's path, valid in
# the guests too. A copy, because a guest running a binary that the host rebuilds meanwhile
# crashes (9p serves the new file under the old mapping). Call after lab_up.
rocehealth_bin() {
  local b=${RH_BIN:-$RH_REPO/build/agent/rocehealth}
  [ -x "$b" ] || fail "rocehealth binary not found at $b (build first, or set RH_BIN)"
  [ -n "${RH_LAB_DIR:-}" ] || fail "rocehealth_bin: call lab_up first"
  [ -x "$RH_LAB_DIR/rocehealth" ] || cp "$b" "$RH_LAB_DIR/rocehealth" || fail "cannot copy $b"
  echo "$RH_LAB_DIR/rocehealth"
}
