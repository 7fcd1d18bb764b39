#!/bin/bash
# Link-level (802.3x) pause and physical-layer errors from pasted captures (issue 12 classes 5
# and 7): `diagnose --bundle t0 --bundle t1` on two small inline captures of one host taken 10 s
# apart (hostname, timestamp, ibv_devinfo -v port block, rdma link, ethtool -S of the counters
# that matter). mlx5, bnxt and ice names; a healthy pair as control.
# Usage: test_link_phy_bundles.sh ROCEHEALTH
set -u
bin=$1 failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; failed=1; }

# capture DIR T DEVICE NETDEV "name value"...: one capture at time T (s).
capture() {
    local d=$1 t=$2 dev=$3 ndev=$4; shift 4
    mkdir -p "$d"
    echo "host-under-test" > "$d/hostname"
    echo "$t" > "$d/timestamp"
    cat > "$d/ibv_devinfo-v.txt" <<TXT
hca_id:	$dev
	transport:			InfiniBand (0)
	fw_ver:				22.36.1010
	node_guid:			0c42:a103:0010:2030
	sys_image_guid:			0c42:a103:0010:2030
	phys_port_cnt:			1
		port:	1
			state:			PORT_ACTIVE (4)
			max_mtu:		4096 (5)
			active_mtu:		4096 (5)
			link_layer:		Ethernet
			active_width:		4X (2)
			active_speed:		25.0 Gbps (32)
			phys_state:		LINK_UP (5)
			GID[  0]:		fe80:0000:0000:0000:0e42:a1ff:fe10:2030, RoCE v1
			GID[  1]:		fe80::e42:a1ff:fe10:2030, RoCE v2
			GID[  2]:		0000:0000:0000:0000:0000:ffff:0a00:0204, RoCE v1
			GID[  3]:		::ffff:10.0.2.4, RoCE v2
TXT
    echo "link $dev/1 state ACTIVE physical_state LINK_UP netdev $ndev " > "$d/rdma-link.txt"
    { echo "NIC statistics:"; for kv in "$@"; do echo "     ${kv% *}: ${kv#* }"; done; } \
        > "$d/ethtool-S-$ndev.txt"
}

# pair NAME DEVICE NETDEV "name v0 v1"...: captures at t=1000 and t=1010.
pair() {
    local name=$1 dev=$2 ndev=$3; shift 3
    local a=() b=()
    for spec in "$@"; do
        read -r n v0 v1 <<<"$spec"
        a+=("$n $v0"); b+=("$n $v1")
    done
    capture "$work/$name/t0" 1000 "$dev" "$ndev" "${a[@]}"
    capture "$work/$name/t1" 1010 "$dev" "$ndev" "${b[@]}"
}

# expect NAME EXIT TEXT...: diagnose the pair; "!TEXT" must not appear.
expect() {
    local name=$1 want=$2; shift 2
    local out rc
    out=$("$bin" diagnose --bundle "$work/$name/t0" --bundle "$work/$name/t1" 2>&1); rc=$?
    # "0|2": healthy, or healthy except for rules the span cannot judge (no finding either way)
    [[ "$rc" =~ ^($want)$ ]] || fail "$name: exit $rc, expected $want; output: $out"
    for t in "$@"; do
        if [ "${t#!}" != "$t" ]; then
            grep -qF -- "${t#!}" <<<"$out" && fail "$name: '${t#!}' in output: $out"
        else
            grep -qF -- "$t" <<<"$out" || fail "$name: '$t' not in output: $out"
        fi
    done
}

# Class 5. mlx5, global pause on: rx paused 4.3 s of 10 s by the duration counter.
pair mlx5_global mlx5_0 ens2f0np0 "rx_pause_ctrl_phy 100 13100" "tx_pause_ctrl_phy 0 0" \
    "rx_global_pause 100 13100" "rx_global_pause_duration 5000 4305000" \
    "tx_global_pause 0 0" "tx_global_pause_duration 0 0" "rx_discards_phy 0 0"
expect mlx5_global 1 "link_pause_storm" "43% of the time" "(rx pause)" "!] pause_storm on"
# bnxt: 13000 pause frames in 10 s x 335.5 us = 44% at most, sent by this host.
pair bnxt_global bnxt_re0 enp65s0f0np0 "rx_pause_frames 0 0" "tx_pause_frames 5 13005" \
    "rx_stat_discard 0 0"
expect bnxt_global 1 "link_pause_storm" "(tx pause)"

# Class 7. ice: CRC errors (frames lost) at 2e-10 of the line.
pair ice_crc irdma0 ens2f0 "rx_crc_errors.nic 10 210" "illegal_bytes.nic 0 0" \
    "link_xoff_rx.nic 0 0" "link_xoff_tx.nic 0 0"
expect ice_crc 1 "physical_errors" "cable, optic or connector"
# mlx5: FEC corrects 1e-5 of the bits, 98% of them on lane 1; no frame lost.
pair mlx5_lane mlx5_0 ens2f0np0 "rx_crc_errors_phy 0 0" "rx_symbol_err_phy 0 0" \
    "rx_pcs_symbol_err_phy 0 0" "rx_corrected_bits_phy 0 10000000" \
    "rx_err_lane_0_phy 0 70000" "rx_err_lane_1_phy 0 9800000" "rx_err_lane_2_phy 0 60000" \
    "rx_err_lane_3_phy 0 70000"
expect mlx5_lane 1 "fec_marginal_link" "1e-05 bits per bit on the line" "lane_errors" \
    "lane 1 has 98%" "!physical_errors"

# Healthy control: the same counters standing still, and light pause.
pair healthy mlx5_0 ens2f0np0 "rx_pause_ctrl_phy 10 20" "tx_pause_ctrl_phy 0 0" \
    "rx_crc_errors_phy 3 3" "rx_corrected_bits_phy 100 600" \
    "rx_err_lane_0_phy 25 150" "rx_err_lane_1_phy 25 150" "rx_err_lane_2_phy 25 150" \
    "rx_err_lane_3_phy 25 150"
expect healthy "0|2" "!link_pause_storm" "!physical_errors" "!fec_marginal_link" "!lane_errors"

[ $failed = 0 ] && echo "PASS: link pause and physical errors from bundles"
exit $failed
