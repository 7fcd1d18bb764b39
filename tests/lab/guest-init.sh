#!/bin/bash
# guest-init.sh -- PID 1 of a Soft-RoCE lab guest (runs from the host's root,
# mounted read-only over 9p under a tmpfs overlay; see mkinitramfs.sh).
#
# Kernel command line parameters (set by lab.sh):
#   rh.name=g1  rh.ip=10.99.0.11/24  rh.dir=<host lab dir>  [rh.mtu=1500] [rh.ttl=S]
#
# 1. Brings up lo/eth0, creates rxe0 on eth0 and waits for
#    port ACTIVE + a RoCE v2 IPv4 GID; then writes /lab/<name>/info and the
#    /lab/<name>/ready marker.
# 2. Runs the command runner on /lab/<name>/cmd (protocol, all files in cmd/):
#      <id>.sh    written (atomically) by the host: a bash script to run
#      <id>.pid   pid (= process group id) of the running command
#      <id>.out / <id>.err   its stdout / stderr
#      <id>.rc    exit status, written last (one small write; the host waits
#                 for it to be non-empty)
#      <id>.<n>.kill  written by the host: a signal name; the runner sends it to
#                 the command's whole process group, then creates <id>.<n>.kill.done
#    /lab/<name>/shutdown (or /lab/shutdown) -> sync and poweroff.
# The lab dir is also bind-mounted at its host path (rh.dir) so absolute paths
# under it are identical on host and guest.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
umask 022

log() { local up _; read -r up _ </proc/uptime 2>/dev/null; echo "rh-guest [${up:-?}]: $*" >/dev/console; }
die() { log "FATAL: $*"; [ -n "${gdir:-}" ] && echo "$*" >"$gdir/failed"; sync; poweroff -f; sleep 5; }

# Stage 1 (the initramfs) already mounted proc, sys, dev, devpts, tmp, run and
# the lab share (and loaded virtio_net + rdma_rxe).  Avoid forks here: every
# exec reads its binary over 9p, which is slow under TCG.
[ -e /proc/self ] || mount -t proc proc /proc
[ -e /sys/class ] || mount -t sysfs sysfs /sys

name='' ip='' dir='' mtu=1500 ttl=0
read -r cmdline </proc/cmdline
for a in $cmdline; do
  case $a in
    rh.name=*) name=${a#rh.name=} ;;
    rh.ip=*)   ip=${a#rh.ip=} ;;
    rh.dir=*)  dir=${a#rh.dir=} ;;
    rh.mtu=*)  mtu=${a#rh.mtu=} ;;
    rh.ttl=*)  ttl=${a#rh.ttl=} ;;
    rh.qp_timeout=*) qp_timeout=${a#rh.qp_timeout=} ;;
  esac
done
[ -n "$name" ] && [ -n "$ip" ] || die "rh.name/rh.ip missing"
gdir=/lab/$name
mkdir -p "$gdir/cmd" || die "cannot write to /lab"

# --- network + rxe ---------------------------------------------------------
log "mounts done"
# The lab's fabric key (lab.sh writes it), where every rocehealth command looks by default.
if [ -s /lab/fabric.key ]; then
  # A copy, not a symlink: key files are opened without following symlinks, and must be
  # owned by root with mode 0600 (probes/auth/secret_file.h).
  mkdir -p -m 700 /etc/rocehealth && install -m 600 -o root -g root /lab/fabric.key /etc/rocehealth/fabric.key
fi
[ -d /sys/module/rdma_rxe ] && [ -e /sys/class/net/eth0 ] ||
  modprobe -q -a virtio_net rdma_rxe   # normally already loaded by stage 1
echo "$name" >/proc/sys/kernel/hostname
echo "$name" >/etc/hostname
ip -batch - <<IP || die "cannot configure eth0 (mtu $mtu, $ip)"
link set lo up
link set eth0 mtu $mtu up
addr add $ip dev eth0
IP
ulimit -l unlimited       # memlock for verbs memory registration
rdma link add rxe0 type rxe netdev eth0 || die "rdma link add rxe0"
log "eth0 up, rxe0 added"

port=/sys/class/infiniband/rxe0/ports/1
# Sleep without forking: read with a timeout on a fifo nobody writes to.
mkfifo /run/rh-sleep && exec 9<>/run/rh-sleep
nap() { read -r -t 0.1 -u 9 _ || true; }
gid_index=
for ((n = 0; n < 300; n++)); do            # up to ~30 s; builtins only
  state=; read -r state <"$port/state" 2>/dev/null
  if [[ $state == *ACTIVE* ]]; then
    for ((i = 0; i < 16; i++)); do
      ty=; read -r ty <"$port/gid_attrs/types/$i" 2>/dev/null || continue
      [ "$ty" = "RoCE v2" ] || continue
      read -r gid <"$port/gids/$i"
      [[ $gid == 0000:0000:0000:0000:0000:ffff:* ]] && { gid_index=$i; break; }
    done
    [ -n "$gid_index" ] && break
  fi
  nap
done
[ -n "$gid_index" ] || die "rxe0 not ACTIVE / no RoCE v2 IPv4 GID after 30 s"

{
  echo "name=$name"
  echo "ip=${ip%/*}"
  echo "gid_index=$gid_index"
  echo "gid=$gid"
  read -r k </proc/sys/kernel/osrelease; echo "kernel=$k"
} >"$gdir/info.tmp" && mv "$gdir/info.tmp" "$gdir/info"
read -r up _ </proc/uptime; echo "$up" >"$gdir/ready.tmp" && mv "$gdir/ready.tmp" "$gdir/ready"
log "ready: $name ip=$ip rxe0 gid_index=$gid_index"

# Optional lifetime cap (rh.ttl=SECONDS, 0 = none): a forgotten lab powers off.

# --- command runner ----------------------------------------------------------
export RH_LAB_DIR=${dir:-/lab} RH_NAME=$name RH_GID_INDEX=$gid_index
# Every rocehealth command in the guest uses this RC local ACK timeout (see lab.sh).
[ -n "${qp_timeout:-}" ] && export ROCEHEALTH_QP_TIMEOUT=$qp_timeout
cd "$gdir/cmd" || die "no cmd dir"
shopt -s nullglob
start_cmd() {  # start_cmd ID : run ID.sh in its own process group (no execs here
  local id=$1  # but bash itself: each exec costs ~0.3 s under TCG)
  (
    set -m                      # job control: the job becomes a process group leader
    bash "$id.sh" >"$id.out" 2>"$id.err" </dev/null &
    pid=$!
    set +m
    echo "$pid" >"$id.pid"
    wait "$pid"
    echo $? >"$id.rc"          # one small write(): the host waits for it to be non-empty
  ) &
}
declare -A started=() handled=()

while :; do
  for f in *.sh *.kill; do
    id=${f%.*}
    case $f in
      *.sh)
        [ -n "${started[$id]:-}" ] || { started[$id]=1; start_cmd "$id"; } ;;
      *.kill)
        [ -n "${handled[$f]:-}" ] && continue
        id=${f%%.*}
        sig=; read -r sig <"$f"; sig=${sig:-TERM}
        if [ -s "$id.pid" ] && [ ! -e "$id.rc" ]; then
          kill -s "$sig" -- "-$(<"$id.pid")" 2>/dev/null || kill -s "$sig" "$(<"$id.pid")" 2>/dev/null
        elif [ ! -e "$id.rc" ] && [ -n "${started[$id]:-}" ]; then
          continue   # started but pid not yet recorded: retry next round
        fi
        handled[$f]=1
        : >"$f.done" ;;   # (no rm: an exec) the host deletes both
    esac
  done
  if [ "$ttl" -gt 0 ] && [ $SECONDS -ge "$ttl" ]; then
    log "lifetime rh.ttl=${ttl}s exceeded, powering off"; sync; poweroff -f
  fi
  if [ -e "$gdir/shutdown" ] || [ -e /lab/shutdown ]; then
    log "shutdown requested"
    sync
    poweroff -f
  fi
  nap
done
