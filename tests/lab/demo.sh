#!/bin/bash
# demo.sh -- README command 1's last step: boot two Soft-RoCE guests, run `rocehealth
# responder` in g1, then from g2 a real WRITE/READ latency probe to g1 and `rocehealth check`
# (with --peer g1), and print what each prints. Uses the build in build/ (or $RH_BIN).
. "$(dirname "$0")/lib.sh"

log "booting 2 QEMU guests with Soft-RoCE (rxe0 on eth0)..."
lab_up 2
bin=$(rocehealth_bin) || exit 1
g1_ip=$(lab_ip g1)

lab spawn g1 -- "$bin" responder >/dev/null || fail "cannot start the responder in g1"
lab_wait_port g1 18520

show() {  # show GUEST CMD...: print the command line, then run it in the guest
  local g=$1; shift
  echo
  echo "root@$g:~# ${*/#$bin/rocehealth}"
  lab_exec "$g" --timeout 600 -- "$@"
  local rc=$?
  echo "(exit status $rc)"
}

show g2 "$bin" probe "$g1_ip" --iterations 50
show g2 "$bin" check
show g2 "$bin" check --peer "$g1_ip"
echo
log "demo done; the guests are powered off on exit"
