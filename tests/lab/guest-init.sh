#!/bin/bash
# guest-init.sh -- PID 1 of a Soft-RoCE lab guest (runs from the host's root,
# mounted read-only over 9p under a tmpfs overlay; see mkinitramfs.sh).
#
# Kernel command line parameters (set by lab.sh):
#   rh.name=g1  rh.ip=10.99.0.11/24  rh.dir=<host lab dir>  [rh.mtu=1500]
#
# 1. Finishes the mounts, brings up lo/eth0, creates rxe0 on eth0 and waits for
#    port ACTIVE + a RoCE v2 IPv4 GID; then writes /lab/<name>/info and the
#    /lab/<name>/ready marker.
# 2. Runs the command runner on /lab/<name>/cmd (protocol, all files in cmd/):
#      <id>.sh    written (atomically) by the host: a bash script to run
#      <id>.run   the guest renames .sh -> .run when it starts it
#      <id>.pid   pid (= process group id) of the running command
#      <id>.out / <id>.err   its stdout / stderr
#      <id>.rc    exit status, written last, atomically (tmp + rename)
#      <id>.kill  written by the host: contains a signal name; the runner sends
#                 it to the command's whole process group, then deletes it
#    /lab/<name>/shutdown (or /lab/shutdown) -> sync and poweroff.
# The lab dir is also bind-mounted at its host path (rh.dir) so absolute paths
# under it are identical on host and guest.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
umask 022

log() { local up _; read -r up _ </proc/uptime 2>/dev/null; echo "rh-guest [${up:-?}]: $*" >/dev/console; }
die() { log "FATAL: $*"; [ -n "${gdir:-}" ] && echo "$*" >"$gdir/failed"; sync; poweroff -f; sleep 5; }

# --- mounts ---------------------------------------------------------------
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs -o mode=0755 tmpfs /var/tmp 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs /var/log 2>/dev/null

name= ip= dir= mtu=1500
for a in $(cat /proc/cmdline); do
  case $a in
    rh.name=*) name=${a#rh.name=} ;;
    rh.ip=*)   ip=${a#rh.ip=} ;;
    rh.dir=*)  dir=${a#rh.dir=} ;;
    rh.mtu=*)  mtu=${a#rh.mtu=} ;;
  esac
done
[ -n "$name" ] && [ -n "$ip" ] || die "rh.name/rh.ip missing"
gdir=/lab/$name
mkdir -p "$gdir/cmd" || die "cannot write to /lab"
if [ -n "$dir" ] && [ "$dir" != /lab ]; then
  mkdir -p "$dir" && mount --bind /lab "$dir" || log "cannot bind /lab at $dir"
fi

# --- network + rxe ---------------------------------------------------------
log "mounts done"
modprobe virtio_net 2>/dev/null   # no udev: load the NIC driver by hand
for _ in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
hostname "$name"
echo "$name" >/etc/hostname
ip link set lo up
ip link set eth0 mtu "$mtu" 2>/dev/null || log "cannot set eth0 mtu $mtu"
ip link set eth0 up || die "no eth0"
ip addr add "$ip" dev eth0 || die "ip addr add $ip"
ulimit -l unlimited       # memlock for verbs memory registration
ulimit -n 65536
modprobe rdma_rxe || die "modprobe rdma_rxe"
log "eth0 up, rxe0 added"
rdma link add rxe0 type rxe netdev eth0 || die "rdma link add rxe0"

port=/sys/class/infiniband/rxe0/ports/1
gid_index=
for _ in $(seq 1 300); do
  if grep -q ACTIVE "$port/state" 2>/dev/null; then
    for i in $(ls "$port/gid_attrs/types" 2>/dev/null | sort -n); do
      [ "$(cat "$port/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
      case $(cat "$port/gids/$i") in
        0000:0000:0000:0000:0000:ffff:*) gid_index=$i; break ;;
      esac
    done
    [ -n "$gid_index" ] && break
  fi
  sleep 0.1
done
[ -n "$gid_index" ] || die "rxe0 not ACTIVE / no RoCE v2 IPv4 GID after 30 s"

{
  echo "name=$name"
  echo "ip=${ip%/*}"
  echo "gid_index=$gid_index"
  echo "gid=$(cat "$port/gids/$gid_index")"
  echo "kernel=$(uname -r)"
} >"$gdir/info.tmp" && mv "$gdir/info.tmp" "$gdir/info"
cut -d" " -f1 /proc/uptime >"$gdir/ready.tmp" && mv "$gdir/ready.tmp" "$gdir/ready"
log "ready: $name ip=$ip rxe0 gid_index=$gid_index"

# --- command runner ----------------------------------------------------------
export RH_LAB_DIR=${dir:-/lab} RH_NAME=$name RH_GID_INDEX=$gid_index
cd "$gdir/cmd" || die "no cmd dir"
shopt -s nullglob
# Sleep without forking: read with a timeout on a fifo nobody writes to.
mkfifo /run/rh-sleep && exec 9<>/run/rh-sleep
nap() { read -r -t 0.1 -u 9 _ || true; }

start_cmd() {  # start_cmd ID : run ID.run in its own session/process group
  local id=$1
  (
    setsid bash "$id.run" >"$id.out" 2>"$id.err" </dev/null &
    pid=$!
    echo "$pid" >"$id.pid"
    wait "$pid"
    echo $? >"$id.rc.tmp"
    mv -f "$id.rc.tmp" "$id.rc"
  ) &
}

while :; do
  for f in *.sh *.kill; do
    id=${f%.*}
    case $f in
      *.sh)
        mv -f "$f" "$id.run" 2>/dev/null && start_cmd "$id" ;;
      *.kill)
        sig=$(<"$f"); sig=${sig:-TERM}
        if [ -s "$id.pid" ] && [ ! -e "$id.rc" ]; then
          kill -s "$sig" -- "-$(<"$id.pid")" 2>/dev/null || kill -s "$sig" "$(<"$id.pid")" 2>/dev/null
        elif [ ! -e "$id.rc" ] && [ -e "$id.run" ]; then
          continue   # started but pid not yet recorded: retry next round
        fi
        rm -f "$f" ;;
    esac
  done
  if [ -e "$gdir/shutdown" ] || [ -e /lab/shutdown ]; then
    log "shutdown requested"
    sync
    poweroff -f
  fi
  nap
done
