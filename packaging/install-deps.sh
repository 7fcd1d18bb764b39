#!/bin/bash
# Installs, from Debian's packages, what building rocehealth (packaging/debian-build-deps.txt)
# and running its Soft-RoCE lab (tests/lab/deps.txt) need. Idempotent: does nothing when all
# are present. Run as root on Debian 12.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mapfile -t pkgs < <(cat "$here/debian-build-deps.txt" "$here/../tests/lab/deps.txt" | grep -v '^\s*#' | sed '/^\s*$/d' | sort -u)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run as root" >&2
  exit 2
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
