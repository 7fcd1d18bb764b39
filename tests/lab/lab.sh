#!/bin/bash
# lab.sh -- host-side CLI of the Soft-RoCE lab: N small QEMU (TCG) guests on
# one L2 segment (QEMU socket/multicast netdev), each with rdma_rxe on eth0,
# running binaries straight from the host's filesystem (host / is their
# read-only lower root), so the host-built build/rocehealth runs unchanged.
#
# Usage:  lab.sh [--dir DIR] COMMAND ...
#   up N [--mem MB] [--timeout S]  boot g1..gN (10.99.0.11.. /24), wait for ready
#   exec NAME [--timeout S] [--cwd D] -- CMD...
#                                  run CMD in guest NAME; its stdout/stderr are
#                                  printed on return, exit status is CMD's
#                                  (124 on timeout: the command is then killed)
#   spawn NAME [--cwd D] -- CMD... start CMD in the background, print its ID
#   wait ID [--timeout S]          wait for a spawned command (like exec's end)
#   kill ID [SIG] | kill NAME ID [SIG]
#                                  signal a spawned command's process group
#   done ID                        exit 0 if the spawned command has finished
#   ip NAME | gid NAME             guest IPv4 address / RoCE v2 GID index
#   info NAME                      guest info (name, ip, gid_index, gid, kernel)
#   console NAME [LINES]           tail of the guest's serial console log
#   names                          list guests of the running lab
#   down                           power off + kill the guests (logs are kept)
# DIR defaults to $RH_LAB_DIR or /tmp/rocehealth-lab; it is mounted in every
# guest at /lab AND at DIR itself, so paths under DIR are valid on both sides.
# Commands run as root in the guest with cwd = the repo root (--cwd to change),
# env RH_NAME, RH_GID_INDEX, RH_LAB_DIR set, memlock unlimited.
#
# Environment: RH_LAB_DIR, RH_LAB_MEM (MB, 512), RH_LAB_BOOT_TIMEOUT (180 s),
#   RH_LAB_EXEC_TIMEOUT (300 s), RH_LAB_HOST_MTU (9000), RH_LAB_GUEST_MTU (eth0 MTU at boot, 9000: jumbo, as a RoCE fabric runs), RH_LAB_9P_CACHE (none),
#   RH_LAB_TTL (7200 s guest lifetime cap, 0 = none), RH_LAB_CACHE (vmlinux cache dir),
#   RH_LAB_PVH (1: boot extracted vmlinux), RH_LAB_OWNER_PID (when this pid dies, the lab
#   is torn down by a watchdog), RH_LAB_KEEP_CMDS=1 (keep cmd files), RH_LAB_KVER,
#   RH_LAB_RMEM (16 MiB: net.core.rmem_default while qemus start; 0 = untouched),
#   RH_LAB_HOSTFWD (guest TCP ports, e.g. 9477 or 9477,9478: each guest also gets eth1 on QEMU
#   user networking, restricted (no way out), with host 127.0.0.1:<free port> forwarded to each
#   port; the host port is in DIR/<name>/hostfwd.<port>, the first port's also in
#   DIR/<name>/hostfwd; eth1 is left down: in the guest,
#   `ip addr add 10.0.2.15/24 dev eth1 && ip link set eth1 up`).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=${RH_LAB_DIR:-/tmp/rocehealth-lab}
: "${RH_LAB_HOST_MTU=9000}"   # virtio-net host_mtu (guest max MTU); empty = omit

err() { echo "lab: $*" >&2; }
die() { err "$*"; exit 1; }
nap() { sleep "${1:-0.1}"; }

guest_pid() { cat "$dir/$1/qemu.pid" 2>/dev/null; }
# alive NAME: its qemu runs (the pid is checked to really be that qemu: no
# signals to an unrelated process that reused the pid).
alive() {
  local p; p=$(guest_pid "$1")
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "-name rocehealth-lab-$1 "
}
names() { cat "$dir/names" 2>/dev/null; }
console_tail() {  # console_tail NAME [LINES]
  echo "----- $1: last ${2:-30} lines of $dir/$1/console.log -----" >&2
  tail -n "${2:-30}" "$dir/$1/console.log" >&2 2>/dev/null
  [ -s "$dir/$1/qemu.log" ] && { echo "----- $1: qemu.log -----" >&2; tail -n 10 "$dir/$1/qemu.log" >&2; }
  echo "-----" >&2
}
require_guest() {
  [ -e "$dir/$1/ready" ] || die "guest $1 is not up (no $dir/$1/ready); run: lab.sh up N"
  alive "$1" || { console_tail "$1"; die "guest $1: qemu is not running"; }
}
# A UDP port not currently bound on the host (multicast segment id).
free_port() {
  local p hex
  for _ in $(seq 50); do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    hex=$(printf ':%04X ' "$p")
    grep -q "$hex" /proc/net/udp /proc/net/udp6 2>/dev/null || { echo "$p"; return; }
  done
  return 1
}

cmd_down() {
  local n p pids=()
  [ -d "$dir" ] || return 0
  touch "$dir/shutdown" 2>/dev/null           # guests poweroff themselves
  for n in $(names); do alive "$n" && pids+=("$(guest_pid "$n")"); done
  if [ ${#pids[@]} -gt 0 ]; then
    for _ in $(seq 30); do                    # up to 3 s of graceful shutdown
      local any=0
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && any=1; done
      [ $any = 0 ] && break
      nap
    done
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    nap 0.5
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  fi
  # Stop the watchdog unless we ARE the watchdog.
  p=$(cat "$dir/watchdog.pid" 2>/dev/null)
  [ -n "$p" ] && [ "$p" != "${RH_LAB_WATCHDOG_SELF:-}" ] && kill "$p" 2>/dev/null
  rm -f "$dir/watchdog.pid" "$dir/shutdown"
  for n in $(names); do rm -f "$dir/$n/qemu.pid" "$dir/$n/ready"; done
  return 0
}

# boot_kernel KVER BZIMAGE: print the kernel image to boot.  Booting the
# uncompressed ELF vmlinux through its PVH entry point skips the firmware +
# in-guest xz decompression, which costs ~10 s per guest under TCG.  The
# extracted image is cached (RH_LAB_CACHE, default /var/tmp/rocehealth-lab).
# Falls back to the bzImage if extraction fails.
boot_kernel() {
  local kver=$1 bz=$2 cache=${RH_LAB_CACHE:-/var/tmp/rocehealth-lab}
  local out=$cache/vmlinux-$kver
  if [ "${RH_LAB_PVH:-1}" = 1 ] && ! [ -s "$out" ] && mkdir -p "$cache" 2>/dev/null; then
    local off tmp=$out.tmp.$$
    off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | head -1 | cut -d: -f1)
    if [ -n "$off" ]; then
      tail -c +$((off + 1)) "$bz" | xz -dcq >"$tmp" 2>/dev/null
      # valid if it is an ELF image carrying the Xen/PVH ELF note
      if [ "$(head -c 4 "$tmp" | tr -d '\177')" = ELF ] && LC_ALL=C grep -qa 'Xen' "$tmp"; then
        mv -f "$tmp" "$out"
      fi
    fi
    rm -f "$tmp"
  fi
  if [ "${RH_LAB_PVH:-1}" = 1 ] && [ -s "$out" ]; then echo "$out"; else echo "$bz"; fi
}

cmd_up() {
  local n="" mem=${RH_LAB_MEM:-512} timeout=${RH_LAB_BOOT_TIMEOUT:-180}
  while [ $# -gt 0 ]; do
    case $1 in
      --dir) dir=$2; shift 2 ;;
      --mem) mem=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      *) n=$1; shift ;;
    esac
  done
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "usage: lab.sh up N [--dir DIR] [--mem MB]"
  command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
  local kver=${RH_LAB_KVER:-$(ls -d /lib/modules/*-amd64 2>/dev/null | sort -V | tail -1 | xargs -r basename)}
  local kernel=/boot/vmlinuz-$kver
  [ -n "$kver" ] && [ -r "$kernel" ] || die "no Debian amd64 kernel in /boot (apt-get install linux-image-amd64)"
  modinfo -k "$kver" rdma_rxe >/dev/null 2>&1 || die "kernel $kver has no rdma_rxe module"
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  for g in $(names); do alive "$g" && die "a lab is already running in $dir ($g); run: lab.sh --dir $dir down"; done

  local t0=$SECONDS
  kernel=$(boot_kernel "$kver" "$kernel")
  "$here/mkinitramfs.sh" "$dir/initramfs.cpio.gz" "$kver" 2>"$dir/mkinitramfs.log" \
    || { cat "$dir/mkinitramfs.log" >&2; die "initramfs build failed"; }
  local port; port=$(free_port) || die "no free UDP port"
  echo "$port" >"$dir/port"
  rm -f "$dir/shutdown"
  : >"$dir/names"
  # One fabric key per lab, which every guest holds as /etc/rocehealth/fabric.key (guest-init.sh):
  # control commands (incast, accept, the agent's incast API) work between the guests as on a
  # fabric whose hosts got the key from configuration management.
  [ -s "$dir/fabric.key" ] || (umask 077 && head -c 32 /dev/urandom >"$dir/fabric.key") \
    || die "cannot write the lab's fabric key"

  # The guests' "wire" is a UDP multicast socket per qemu; with the default
  # 208 KiB receive buffer, bursts (large RDMA messages) overflow it and the
  # host drops frames (~20% of a 1 MiB ib_write_lat), turning the healthy lab
  # fabric lossy.  Sockets take net.core.rmem_default at creation, so raise it
  # only while the qemus start (RH_LAB_RMEM bytes, 0 = leave alone), then restore.
  local rmem=${RH_LAB_RMEM:-16777216}; rmem_old=   # (global: used by the EXIT trap)
  if [ "$rmem" != 0 ] && rmem_old=$(cat /proc/sys/net/core/rmem_default 2>/dev/null) &&
     [ "$rmem_old" -lt "$rmem" ] && echo "$rmem" >/proc/sys/net/core/rmem_default 2>/dev/null; then :
  else
    [ "$rmem" != 0 ] && [ "${rmem_old:-0}" -lt "$rmem" ] && err "warning: cannot raise net.core.rmem_default; the lab L2 segment may drop bursts"
    rmem_old=
  fi
  restore_rmem() { [ -n "$rmem_old" ] && echo "$rmem_old" >/proc/sys/net/core/rmem_default; rmem_old=; }

  # On any failure from here on: tear everything down.
  trap 'restore_rmem; cmd_down' EXIT
  trap 'exit 130' INT TERM

  local i name
  for i in $(seq 1 "$n"); do
    name=g$i
    echo "$name" >>"$dir/names"
    rm -rf "${dir:?}/${name:?}"
    mkdir -p "$dir/$name/cmd"
    local mac; mac=$(printf '52:54:00:99:%02x:%02x' $((i / 256)) $((i % 256)))
    # no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer check can fail
    # ("IO-APIC + timer doesn't work!" panic); the check proves nothing in a VM.
    local append="console=ttyS0 quiet loglevel=4 panic=-1 no_timer_check rh.init=$here/guest-init.sh"
    append+=" rh.name=$name rh.ip=10.99.0.$((10 + i))/24 rh.dir=$dir rh.cache=${RH_LAB_9P_CACHE:-none} rh.ttl=${RH_LAB_TTL:-7200} rh.mtu=${RH_LAB_GUEST_MTU:-9000} rh.qp_timeout=${RH_LAB_QP_TIMEOUT:-18}"
    local fwd=()
    if [ -n "${RH_LAB_HOSTFWD:-}" ]; then
      local hport gport rules="" first=1
      for gport in ${RH_LAB_HOSTFWD//,/ }; do
        hport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') || die "no free host port"
        [ $first = 0 ] || echo "$hport" >"$dir/$name/hostfwd"
        echo "$hport" >"$dir/$name/hostfwd.$gport"
        rules+=",hostfwd=tcp:127.0.0.1:$hport-:$gport"
        first=0
      done
      fwd=(-netdev "user,id=n1,restrict=on$rules"
           -device "virtio-net-pci,netdev=n1,mac=52:54:00:98:$(printf '%02x:%02x' $((i / 256)) $((i % 256)))")
    fi
    # host_mtu=9000 lets the guest raise eth0's MTU up to 9000 (virtio-net
    # caps max_mtu at host_mtu); eth0 starts at RH_LAB_GUEST_MTU.
    qemu-system-x86_64 \
      -name "rocehealth-lab-$name" \
      -accel tcg,thread=multi -cpu max -smp 1 -m "$mem" \
      -nodefaults -display none -no-reboot \
      -kernel "$kernel" -initrd "$dir/initramfs.cpio.gz" -append "$append" \
      -serial "file:$dir/$name/console.log" -monitor none \
      -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
      -virtfs "local,path=$dir,mount_tag=labshare,security_model=none,multidevs=remap" \
      -netdev "socket,id=n0,mcast=230.0.0.1:$port,localaddr=127.0.0.1" \
      -device "virtio-net-pci,netdev=n0,mac=$mac${RH_LAB_HOST_MTU:+,host_mtu=$RH_LAB_HOST_MTU}" \
      "${fwd[@]}" \
      </dev/null >"$dir/$name/qemu.log" 2>&1 &
    echo $! >"$dir/$name/qemu.pid"
  done

  # Restore rmem_default once every qemu has bound its multicast socket.
  local hex; hex=$(printf ':%04X ' "$port")
  for _ in $(seq 100); do
    [ "$(cat /proc/net/udp | grep -c "$hex")" -ge "$n" ] && break
    nap
  done
  restore_rmem

  # Optional watchdog: tear the lab down when the owner process dies.
  if [ -n "${RH_LAB_OWNER_PID:-}" ]; then
    setsid bash -c '
      while kill -0 "$1" 2>/dev/null && [ -e "$2/watchdog.pid" ]; do sleep 1; done
      RH_LAB_WATCHDOG_SELF=$$ "$3" --dir "$2" down' rh-lab-watchdog \
      "$RH_LAB_OWNER_PID" "$dir" "$here/lab.sh" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/watchdog.pid"
  fi

  # Wait for every guest's ready marker.
  local deadline=$((SECONDS + timeout)) pending
  while :; do
    pending=""
    for name in $(names); do
      if [ -e "$dir/$name/failed" ]; then
        console_tail "$name"; die "guest $name failed to boot: $(cat "$dir/$name/failed")"
      fi
      alive "$name" || { console_tail "$name"; die "guest $name: qemu exited during boot"; }
      [ -e "$dir/$name/ready" ] || pending+=" $name"
    done
    [ -z "$pending" ] && break
    if [ $SECONDS -ge $deadline ]; then
      for name in $pending; do console_tail "$name"; done
      die "timeout after ${timeout}s waiting for:$pending"
    fi
    nap 0.2
  done
  trap - EXIT INT TERM
  echo "$((SECONDS - t0))" >"$dir/boot_seconds"
  err "$n guest(s) ready in $((SECONDS - t0)) s (mcast port $port)"
  echo "$dir"
}

# write_cmd NAME CWD CMD... -> prints the new command's id (without NAME:)
write_cmd() {
  local name=$1 cwd=$2; shift 2
  [ $# -gt 0 ] || die "no command given (use: -- CMD...)"
  local id; id=$(date +%s%N)-$$-$RANDOM
  local c=$dir/$name/cmd
  {
    echo "cd $(printf '%q' "$cwd") || exit 125"
    printf 'exec'; printf ' %q' "$@"; echo
  } >"$c/.$id.tmp" && mv "$c/.$id.tmp" "$c/$id.sh" || die "cannot write command to $c"
  echo "$id"
}

# finish NAME ID TIMEOUT KILL_ON_TIMEOUT: wait for rc, print out/err, return rc
finish() {
  local name=$1 id=$2 timeout=$3 killit=$4 c=$dir/$1/cmd
  local deadline=$((SECONDS + timeout))
  while [ ! -s "$c/$id.rc" ]; do
    if ! alive "$name"; then
      cat "$c/$id.out" 2>/dev/null; cat "$c/$id.err" >&2 2>/dev/null
      console_tail "$name"; err "guest $name died while running command $name:$id"; return 125
    fi
    if [ $SECONDS -ge $deadline ]; then
      cat "$c/$id.out" 2>/dev/null; cat "$c/$id.err" >&2 2>/dev/null
      err "timeout: command $name:$id still running after ${timeout}s: $(grep "^exec" "$c/$id.sh" 2>/dev/null)"
      [ "$killit" = 1 ] && send_kill "$name" "$id" KILL >/dev/null
      return 124
    fi
    nap
  done
  cat "$c/$id.out" 2>/dev/null
  cat "$c/$id.err" >&2 2>/dev/null
  local rc; rc=$(cat "$c/$id.rc")
  [ "${RH_LAB_KEEP_CMDS:-0}" = 1 ] || rm -f "$c/$id".*
  return "${rc:-125}"
}

# send_kill NAME ID SIG: ask the guest runner to signal the command's process
# group; prints the request file (the guest creates FILE.done when delivered).
send_kill() {
  local c=$dir/$1/cmd n; n=$(date +%s%N)
  echo "$3" >"$c/.$2.$n.k" && mv "$c/.$2.$n.k" "$c/$2.$n.kill" && echo "$c/$2.$n.kill"
}

# parse "NAME [--timeout S] [--cwd D] -- CMD..." into globals
parse_run_args() {
  p_name=${1:-}; shift || true
  p_timeout=${RH_LAB_EXEC_TIMEOUT:-300}; p_cwd=$repo
  while [ $# -gt 0 ]; do
    case $1 in
      --timeout) p_timeout=$2; shift 2 ;;
      --cwd) p_cwd=$2; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  p_cmd=("$@")
  [ -n "$p_name" ] || die "guest name missing"
  require_guest "$p_name"
}

split_id() {  # NAME:ID -> s_name, s_id
  [[ ${1:-} == *:* ]] || die "bad id '${1:-}' (expected NAME:ID as printed by spawn)"
  s_name=${1%%:*}; s_id=${1#*:}
}

main() {
  while [ "${1:-}" = --dir ]; do dir=$2; shift 2; done
  local cmd=${1:-help}; shift || true
  case $cmd in
    up) cmd_up "$@" ;;
    down) cmd_down ;;
    exec)
      parse_run_args "$@"
      local id; id=$(write_cmd "$p_name" "$p_cwd" "${p_cmd[@]}") || exit 1
      finish "$p_name" "$id" "$p_timeout" 1 ;;
    spawn)
      parse_run_args "$@"
      local id; id=$(write_cmd "$p_name" "$p_cwd" "${p_cmd[@]}") || exit 1
      local deadline=$((SECONDS + 60))
      until [ -s "$dir/$p_name/cmd/$id.pid" ]; do   # wait until really started
        [ $SECONDS -ge $deadline ] && die "spawned command $p_name:$id did not start within 60 s"
        alive "$p_name" || die "guest $p_name died"
        nap
      done
      echo "$p_name:$id" ;;
    wait)
      split_id "${1:-}"; shift
      local t=${RH_LAB_EXEC_TIMEOUT:-300}
      [ "${1:-}" = --timeout ] && t=$2
      finish "$s_name" "$s_id" "$t" 0 ;;
    done)
      split_id "${1:-}"; [ -s "$dir/$s_name/cmd/$s_id.rc" ] ;;
    kill)
      local sig
      if [[ ${1:-} == *:* ]]; then split_id "$1"; sig=${2:-TERM}
      else s_name=${1:-}; s_id=${2:-}; sig=${3:-TERM}; s_id=${s_id#*:}; fi
      [ -e "$dir/$s_name/cmd/$s_id.pid" ] || die "no such command $s_name:$s_id"
      local k; k=$(send_kill "$s_name" "$s_id" "$sig")
      # Wait (briefly) until the guest has delivered the signal.
      for _ in $(seq 100); do
        [ -e "$k.done" ] && { rm -f "$k" "$k.done"; return 0; }
        nap
      done
      die "guest $s_name did not pick up the kill request" ;;
    ip)   require_guest "${1:?NAME}"; sed -n 's/^ip=//p' "$dir/$1/info" ;;
    gid)  require_guest "${1:?NAME}"; sed -n 's/^gid_index=//p' "$dir/$1/info" ;;
    info) require_guest "${1:?NAME}"; cat "$dir/$1/info" ;;
    console) console_tail "${1:?NAME}" "${2:-30}" 2>&1 ;;
    names) names ;;
    dir) echo "$dir" ;;
    help|-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
    *) die "unknown command '$cmd' (try: lab.sh help)" ;;
  esac
}

main "$@"
