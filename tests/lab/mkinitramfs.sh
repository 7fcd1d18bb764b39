#!/bin/bash
# mkinitramfs.sh OUT [KVER]
#
# Builds the tiny initramfs used by the Soft-RoCE lab guests: busybox-static
# plus the virtio / 9p / overlay modules of the host's Debian kernel.  Its /init
# mounts the HOST root read-only over 9p (tag "hostroot") under a tmpfs
# overlay, mounts the per-run lab directory (tag "labshare") at /lab, and
# switch_roots into that overlay, exec'ing the guest boot script named on the
# kernel command line (rh.init=...).  Everything else (iproute2, rdma-core,
# perftest, build/rocehealth) then comes from the host's filesystem.
set -euo pipefail

out=${1:?usage: mkinitramfs.sh OUT [KVER]}
kver=${2:-$(ls -d /lib/modules/*-amd64 2>/dev/null | sort -V | tail -1 | xargs -r basename)}
[ -n "$kver" ] && [ -d "/lib/modules/$kver" ] || { echo "mkinitramfs: no /lib/modules/*-amd64 (install linux-image-amd64)" >&2; exit 1; }
moddir=/lib/modules/$kver
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || { echo "mkinitramfs: busybox not found (install busybox-static)" >&2; exit 1; }
# A dynamically linked busybox would not run inside the empty initramfs.
if ldd "$busybox" >/dev/null 2>&1; then
  echo "mkinitramfs: $busybox is dynamically linked (install busybox-static)" >&2; exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,lower,rw,newroot,modules}
cp "$busybox" "$stage/bin/busybox"
for a in sh mount umount mkdir insmod switch_root sleep cat echo ls grep poweroff; do
  ln -s busybox "$stage/bin/$a"
done

# Wanted modules, in load order.  Dependencies are resolved from modules.dep
# (deps first); built-in or absent modules are skipped.
wanted="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci
        9pnet 9pnet_virtio netfs fscache 9p overlay virtio_net rdma_rxe"
declare -A seen=()
order=()
modpath() {  # module name -> relative path from modules.dep ('-' and '_' equivalent)
  local re=${1//[-_]/[-_]}
  grep -E "(^|/)${re}\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" | head -1 | cut -d: -f1
}
add_mod() {  # add_mod RELPATH: add deps first, then the module itself
  local rel=$1 dep
  [ -n "${seen[$rel]:-}" ] && return 0
  seen[$rel]=1
  for dep in $(grep -E "^${rel}:" "$moddir/modules.dep" | cut -d: -f2); do
    add_mod "$dep"
  done
  order+=("$rel")
}
for m in $wanted; do
  rel=$(modpath "$m")
  if [ -z "$rel" ]; then
    echo "mkinitramfs: $m not a module (built-in or absent), skipping" >&2
    continue
  fi
  add_mod "$rel"
done

: >"$stage/modules/order"
for rel in "${order[@]}"; do
  base=$(basename "$rel"); base=${base%.xz}; base=${base%.zst}; base=${base%.gz}
  # busybox insmod may not understand compressed modules: decompress here.
  case $rel in
    *.xz)  xz -dc "$moddir/$rel" >"$stage/modules/$base" ;;
    *.zst) zstd -dqc "$moddir/$rel" >"$stage/modules/$base" ;;
    *.gz)  gzip -dc "$moddir/$rel" >"$stage/modules/$base" ;;
    *)     cp "$moddir/$rel" "$stage/modules/$base" ;;
  esac
  echo "$base" >>"$stage/modules/order"
done

cat >"$stage/init" <<'INIT'
#!/bin/sh
# Lab guest stage-1 init (busybox).  See tests/lab/mkinitramfs.sh.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail() { echo "rh-init: FATAL: $*" >/dev/console; sleep 1; poweroff -f; }
for m in $(cat /modules/order); do
  insmod /modules/$m || echo "rh-init: insmod $m failed" >/dev/console
done
rhinit=
rhdir=
cache=none
for a in $(cat /proc/cmdline); do
  case $a in
    rh.init=*) rhinit=${a#rh.init=} ;;
    rh.cache=*) cache=${a#rh.cache=} ;;
    rh.dir=*) rhdir=${a#rh.dir=} ;;
  esac
done
[ -n "$rhinit" ] || fail "no rh.init= on the kernel command line"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=$cache,ro hostroot /lower || fail "mount 9p hostroot"
mount -t tmpfs -o mode=0755 tmpfs /rw || fail "mount tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot || fail "mount overlay"
mkdir -p /newroot/lab
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 labshare /newroot/lab || fail "mount 9p labshare"
[ -x "/newroot$rhinit" ] || fail "guest init $rhinit not found/executable on host root"
# Do the guest's mounts here: busybox runs from RAM, while every exec in the
# new root is read over 9p (slow under TCG).
r=/newroot
mount --move /dev $r/dev
mkdir -p $r/dev/pts $r/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $r/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $r/dev/shm
umount /proc /sys
mount -t proc proc $r/proc
mount -t sysfs sysfs $r/sys
# /tmp is NOT masked: host paths under /tmp (e.g. a build dir) stay visible;
# guest writes land in the overlay's tmpfs upper layer.  /run is masked (host
# pid files and sockets mean nothing in the guest).
mount -t tmpfs -o mode=0755 tmpfs $r/run
# The lab dir is also visible at its host path (rh.dir), so absolute paths
# under it are identical on host and guest.
if [ -n "$rhdir" ] && [ "$rhdir" != /lab ]; then
  mkdir -p "$r$rhdir" && mount --bind $r/lab "$r$rhdir"
fi
exec switch_root /newroot "$rhinit"
INIT
chmod +x "$stage/init"

tmp=$out.tmp.$$
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp"
mv "$tmp" "$out"
echo "mkinitramfs: wrote $out (kernel $kver, ${#order[@]} modules)" >&2
