#!/bin/bash
# test_runtime_deps.sh ROCEHEALTH -- packaging/debian-runtime-deps.txt names every Debian package
# that holds a shared library the binary loads (`ldd`, each library's owner by `dpkg -S`), so a
# production host that installs the list can run a copied binary (issue 29: the list missed
# libcpp-httplib, libxxhash, libssl and libnl-genl). Exit 0 pass, 1 fail, 77 skip (no dpkg).
set -u
bin=$1
list=$(dirname "${BASH_SOURCE[0]}")/../../packaging/debian-runtime-deps.txt
command -v dpkg >/dev/null || { echo "SKIP: no dpkg"; exit 77; }
want=$(grep -v '^\s*#' "$list" | sed '/^\s*$/d' | sort -u)
failed=0
while read -r lib path; do
  [ -n "$path" ] || continue
  # A sanitizer build (tests/run.sh's ASan + UBSan stage) loads the sanitizers' runtimes; the
  # package is never built that way.
  case "$lib" in libasan.so*|libubsan.so*|liblsan.so*|libtsan.so*|libhwasan.so*) continue ;; esac
  # usrmerge: dpkg may know /lib/... as /usr/lib/... or the other way round.
  real=$(readlink -f "$path")
  owner=
  for p in "$path" "$real" "/usr$path" "/usr$real" "${path#/usr}" "${real#/usr}"; do
    owner=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$owner" ] && break
  done
  if [ -z "$owner" ]; then
    echo "FAIL: $lib ($path): no Debian package owns it"; failed=1
  elif ! grep -qx "$owner" <<<"$want"; then
    echo "FAIL: $lib comes from $owner, which $list does not list"; failed=1
  fi
done < <(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
[ "$failed" = 0 ] && echo "test_runtime_deps: every library of $bin is in $list"
exit "$failed"
