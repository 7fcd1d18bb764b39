// The kernel reader (collectors/joblog/kernel_log.cpp): one case per stamp form and per message
// form the kernel has printed, each line in the shape a public thread or the driver's source
// shows (cited above each case), plus lines that must not be events, cut lines and prefixes.
#include <boost/test/unit_test.hpp>

#include "collectors/joblog/job_logs.h"

namespace {

using rh::LogEvent;

std::vector<LogEvent> read(std::vector<std::string> lines) {
    rh::joblog::LogRead out;
    rh::joblog::read_kernel({"t0", "dmesg.txt", lines}, out);
    return out.events;
}

/// The one event of one line (fails the test when there is not exactly one).
LogEvent one(const std::string& line) {
    auto ev = read({line});
    BOOST_TEST_REQUIRE(ev.size() == 1u, "one event expected from: " << line);
    BOOST_TEST(rh::joblog::is_kernel_line(line));
    return ev[0];
}

/// The clock's word ("boot", "local", "wall", "order"), printable in a failed assertion.
std::string clock_of(const LogEvent& e) {
    return rh::to_string(e.clock);
}

bool none(const std::string& line) {
    return read({line}).empty() && !rh::joblog::is_kernel_line(line);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(test_kernel_log)

// ---- stamps ----

// https://jishuzhan.net/article/1911252493641777153 (mlx5 module plug and link up, dmesg)
BOOST_AUTO_TEST_CASE(dmesg_boot_stamp) {
    const auto e = one("[32710.060490] mlx5_core 0000:01:00.0 enp1s0f0: Link up");
    BOOST_TEST(e.kind == "link_up");
    BOOST_TEST(clock_of(e) == "boot");
    BOOST_TEST(e.time_s == 32710.060490, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(e.pci == "0000:01:00.0");
    BOOST_TEST(e.netdev == "enp1s0f0");
    BOOST_TEST(e.device == "enp1s0f0");
    BOOST_TEST(e.host.empty());
    BOOST_TEST(!e.year_unknown);
    BOOST_TEST(e.reader == "kernel");
    BOOST_TEST(e.source == "t0/dmesg.txt:1");
    BOOST_TEST(e.line == 1u);
}

// dmesg -T: https://github.com/Dasharo/coreboot/pull/815 ("[Fri Aug 29 20:09:52 2025] pcieport
// 0000:00:1d.3: AER: Correctable error message received from 0000:06:00.0", Linux >= 6.8)
BOOST_AUTO_TEST_CASE(dmesg_T_stamp_is_local_time_as_if_utc) {
    const auto e =
        one("[Fri Aug 29 20:09:52 2025] pcieport 0000:00:1d.3: AER: Correctable error message "
            "received from 0000:06:00.0");
    BOOST_TEST(clock_of(e) == "local");
    BOOST_TEST(e.time_s == 1756498192.0);
    BOOST_TEST(!e.year_unknown);
    BOOST_TEST(e.kind == "aer_corrected");
    BOOST_TEST(e.pci == "0000:06:00.0");
    // dmesg -T pads a one-digit day with a space ("%e").
    const auto f = one("[Wed Jan  7 16:20:05 2026] mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(f) == "local");
    BOOST_TEST(f.time_s == 1768407605.0 - 7 * 86400);
    BOOST_TEST(f.kind == "link_down");
}

// journalctl -k (short): the year is not printed; the host is.
BOOST_AUTO_TEST_CASE(journalctl_short_stamp_has_no_year_and_names_the_host) {
    const auto e = one("Jan 14 16:20:05 gpu01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(e) == "local");
    BOOST_TEST(e.year_unknown);
    BOOST_TEST(e.time_s == 1182005.0);  // 1970-01-14 16:20:05, the year from the capture
    BOOST_TEST(e.host == "gpu01");
    BOOST_TEST(e.kind == "link_down");
    BOOST_TEST(e.netdev == "ens1f0np0");
}

// syslog kern.log keeps the printk stamp after "kernel:"; the outer wall-clock time is kept.
// https://github.com/ntop/PF_RING/issues/293 ("Nov 17 13:16:56 superserver kernel:
// [11314.654843] ixgbe 0000:08:00.0 eth11: NIC Link is Up 10 Gbps, Flow Control: RX")
BOOST_AUTO_TEST_CASE(kern_log_with_inner_printk_stamp) {
    const auto e = one(
        "Nov 17 13:16:56 superserver kernel: [11314.654843] ixgbe 0000:08:00.0 eth11: NIC Link is "
        "Up 10 Gbps, Flow Control: RX");
    BOOST_TEST(clock_of(e) == "local");
    BOOST_TEST(e.year_unknown);
    BOOST_TEST(e.host == "superserver");
    BOOST_TEST(e.kind == "link_up");
    BOOST_TEST(e.value.value_or(0) == 10.0);
    BOOST_TEST(e.netdev == "eth11");
}

// journalctl -k -o short-iso: the zone is printed, so the time is UTC.
BOOST_AUTO_TEST_CASE(journalctl_short_iso_is_wall_clock) {
    const auto e =
        one("2026-01-14T16:20:05+0100 gpu01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(e) == "wall");
    BOOST_TEST(e.time_s == 1768404005.0);
    BOOST_TEST(e.host == "gpu01");
    BOOST_TEST(!e.year_unknown);
    // short-iso-precise, a zone with a colon
    const auto f = one(
        "2026-01-14T16:20:05.250000+01:00 gpu01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link up");
    BOOST_TEST(f.time_s == 1768404005.25, boost::test_tools::tolerance(1e-6));
    // dmesg --time-format iso: no host, comma before the fraction
    const auto g = one("2026-01-14T16:20:05,000000+0000 mlx5_core 0000:3b:00.0 ens1f0np0: Link up");
    BOOST_TEST(clock_of(g) == "wall");
    BOOST_TEST(g.time_s == 1768407605.0);
    BOOST_TEST(g.host.empty());
}

// journalctl -k -o short-precise / short-full / short-monotonic, dmesg -x and dmesg -r.
BOOST_AUTO_TEST_CASE(other_journalctl_outputs_and_dmesg_x) {
    const auto p =
        one("Jan 14 16:20:05.500000 gpu01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(p) == "local");
    BOOST_TEST(p.year_unknown);
    BOOST_TEST(p.time_s == 1182005.5);
    const auto f = one(
        "Wed 2026-01-14 16:20:05 UTC gpu01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(f) == "wall");
    BOOST_TEST(f.time_s == 1768407605.0);
    BOOST_TEST(f.host == "gpu01");
    const auto c = one(
        "Wed 2026-01-14 16:20:05 CET gpu01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(c) == "local");
    BOOST_TEST(c.time_s == 1768407605.0);
    const auto m = one("[ 1234.567890] gpu01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(m) == "boot");
    BOOST_TEST(m.host == "gpu01");
    const auto x = one("kern  :warn  : [ 1234.567890] mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(x) == "boot");
    BOOST_TEST(x.time_s == 1234.567890, boost::test_tools::tolerance(1e-9));
    const auto r = one("<4>[ 1234.567890] mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(r) == "boot");
    BOOST_TEST(r.kind == "link_down");
}

BOOST_AUTO_TEST_CASE(line_without_stamp_keeps_order_only) {
    const auto e = one("mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(e) == "order");
    BOOST_TEST(e.kind == "link_down");
}

// CONFIG_PRINTK_CALLER: "[   36.553880][  T291] ..."
// (https://github.com/qualcomm-linux/kernel/pull/1118)
BOOST_AUTO_TEST_CASE(printk_caller_id_after_the_stamp) {
    const auto e =
        one("[   36.553880][  T291] pcieport 0000:00:00.0: AER: Multiple Correctable error message "
            "received from 0000:00:00.0");
    BOOST_TEST(clock_of(e) == "boot");
    BOOST_TEST(e.time_s == 36.553880, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(e.kind == "aer_corrected");
    BOOST_TEST(e.pci == "0000:00:00.0");
}

// ---- mlx5_core ----

// https://jishuzhan.net/article/1911252493641777153; events.c port_module ("Port module event:
// module %u, %s", "Cable plugged"/"Cable unplugged"/"Cable error")
BOOST_AUTO_TEST_CASE(mlx5_port_module_events) {
    const auto p =
        one("[32704.121294] mlx5_core 0000:01:00.0: Port module event: module 0, Cable plugged");
    BOOST_TEST(p.kind == "module_plugged");
    BOOST_TEST(p.pci == "0000:01:00.0");
    BOOST_TEST(p.netdev.empty());
    const auto u =
        one("[32704.121294] mlx5_core 0000:01:00.1: Port module event: module 1, Cable unplugged");
    BOOST_TEST(u.kind == "module_unplugged");
    const auto t =
        one("[ 99.1] mlx5_core 0000:01:00.0: Port module event[error]: module 0, Cable error, High "
            "Temperature");
    BOOST_TEST(t.kind == "temperature");
    const auto b = one(
        "[ 99.1] mlx5_core 0000:01:00.0: Port module event[error]: module 0, Cable error, Power "
        "budget exceeded");
    BOOST_TEST(b.kind == "driver_message");
    BOOST_TEST(b.status_text == "Cable error, Power budget exceeded");
}

// mlx5 events.c (pcie_core): "Detected insufficient power on the PCIe slot (%dW).": benign
// on some platforms, so only an event; the rule decides.
BOOST_AUTO_TEST_CASE(mlx5_insufficient_power) {
    const auto e = one(
        "[    5.321] mlx5_core 0000:3b:00.0: Detected insufficient power on the PCIe slot (27W).");
    BOOST_TEST(e.kind == "insufficient_power");
    BOOST_TEST(e.value.value_or(0) == 27.0);
    // cut before the watts: the event stays, the number is not guessed
    const auto c =
        one("[    5.321] mlx5_core 0000:3b:00.0: Detected insufficient power on the PCIe slot (2");
    BOOST_TEST(c.kind == "insufficient_power");
    BOOST_TEST(!c.value.has_value());
}

// mlx5 events.c temp_warn: mlx5_core_warn(... "High temperature on sensors with bit set %llx
// %llx") (torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/events.c); mlx5_core_warn
// prefixes "func:line:(pid N): ". The sensors are a bit mask: no degrees to read.
BOOST_AUTO_TEST_CASE(mlx5_temperature_warning) {
    const auto e = one(
        "[ 812.1] mlx5_core 0000:3b:00.0: temp_warn:165:(pid 0): High temperature on sensors with "
        "bit set 0 1");
    BOOST_TEST(e.kind == "temperature");
    BOOST_TEST(!e.value.has_value());
    // since 2025 ("net/mlx5: Add sensor name to temperature event message", linux-rdma): "%#llx
    // %#llx." and one "Sensor name[N]: asic" line a sensor, which is detail, not another event
    const auto n = one(
        "[ 812.1] mlx5_core 0000:3b:00.0: temp_warn:190:(pid 0): High temperature on sensors with "
        "bit set 0 0x1.");
    BOOST_TEST(n.kind == "temperature");
    BOOST_TEST(
        none("[ 812.1] mlx5_core 0000:3b:00.0: print_sensor_names_in_bit_set:168:(pid 0): Sensor "
             "name[0]: asic"));
}

// mlx5 cmd.c wait_func: "%s(0x%x) timeout. Will cause a leak of a command resource" and
// "%s(0x%x) No done completion", printed by mlx5_core_warn/err with "wait_func:N:(pid P): ".
BOOST_AUTO_TEST_CASE(mlx5_command_timeouts) {
    const auto e = one(
        "[ 1234.5] mlx5_core 0000:3b:00.0: wait_func:1136:(pid 1234): ACCESS_REG(0x805) timeout. "
        "Will cause a leak of a command resource");
    BOOST_TEST(e.kind == "command_timeout");
    BOOST_TEST(e.pid.value_or(0) == 1234u);
    BOOST_TEST(e.status_text == "ACCESS_REG(0x805) timeout");
    BOOST_TEST(e.pci == "0000:3b:00.0");
    const auto n =
        one("[ 1234.5] mlx5_core 0000:3b:00.0: wait_func_handle_exec_timeout:1062:(pid 98): "
            "cmd[0]: QUERY_VPORT_COUNTER(0x770) No done completion");
    BOOST_TEST(n.kind == "command_timeout");
    BOOST_TEST(n.pid.value_or(0) == 98u);
    BOOST_TEST(n.status_text == "QUERY_VPORT_COUNTER(0x770) No done completion");
}

// https://docs.nvidia.com/networking/display/bfswtroubleshooting/nic+mode ("mlx5_core
// 0000:05:00.0: poll_health:840:(pid 0): device's health compromised - reached miss count",
// "print_health_info:429:(pid 0): Health issue observed, firmware internal error, ...")
BOOST_AUTO_TEST_CASE(mlx5_health_and_pci_error_recovery_are_driver_messages) {
    const auto h =
        one("[ 69.847178] mlx5_core 0000:05:00.0: poll_health:840:(pid 0): device's health "
            "compromised - reached miss count");
    BOOST_TEST(h.kind == "driver_message");
    BOOST_TEST(h.status_text == "health compromised");
    const auto f =
        one("[ 69.857135] mlx5_core 0000:05:00.0: print_health_info:429:(pid 0): Health issue "
            "observed, firmware internal error, severity(2) CRITICAL:");
    BOOST_TEST(f.status_text == "health compromised");
    const auto p =
        one("[ 70.1] mlx5_core 0000:05:00.0: mlx5_pci_err_detected Device state = 1 pci_status: 0. "
            "Enter, pci channel state = 2");
    BOOST_TEST(p.kind == "driver_message");
    BOOST_TEST(p.status_text == "PCI error recovery");
}

// The RDMA core names the port and RDMA device: https://github.com/leptonai/gpud/pull/1209
// ("kernel: mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE")
BOOST_AUTO_TEST_CASE(rdma_port_state_names_the_rdma_device) {
    const auto a =
        one("Feb 14 05:03:41 000-000-00000-1-gpu-1 kernel: mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 "
            "Link ACTIVE");
    BOOST_TEST(a.kind == "link_up");
    BOOST_TEST(a.device == "mlx5_5");
    BOOST_TEST(a.netdev.empty());
    BOOST_TEST(a.port == 1u);
    BOOST_TEST(a.host == "000-000-00000-1-gpu-1");
    const auto d = one("[ 9.1] mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link DOWN");
    BOOST_TEST(d.kind == "link_down");
    BOOST_TEST(none("Feb 14 05:03:41 h kernel: mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link INIT"));
}

// ---- bnxt_en, ice, irdma ----

// bnxt_en bnxt_report_link: "NIC Link is Up, %u Mbps %s duplex, Flow control: %s"
BOOST_AUTO_TEST_CASE(bnxt_link_down_and_up) {
    const auto d = one("[ 500.1] bnxt_en 0000:41:00.0 ens2f0np0: NIC Link is Down");
    BOOST_TEST(d.kind == "link_down");
    BOOST_TEST(d.netdev == "ens2f0np0");
    BOOST_TEST(d.pci == "0000:41:00.0");
    const auto u = one(
        "[ 503.2] bnxt_en 0000:41:00.0 ens2f0np0: NIC Link is Up, 100000 Mbps full duplex, Flow "
        "control: ON - receive & transmit");
    BOOST_TEST(u.kind == "link_up");
    BOOST_TEST(u.value.value_or(0) == 100.0);
}

// ice ice_print_link_msg: "NIC Link is up %sbps Full Duplex, ..." (lower-case "up") and "NIC Link
// is Down"
BOOST_AUTO_TEST_CASE(ice_link_down_and_up_case_varies) {
    const auto d = one("[ 600.1] ice 0000:b1:00.0 ens5f0: NIC Link is Down");
    BOOST_TEST(d.kind == "link_down");
    BOOST_TEST(d.netdev == "ens5f0");
    const auto u = one(
        "[ 604.9] ice 0000:b1:00.0 ens5f0: NIC Link is up 100 Gbps Full Duplex, Requested FEC: "
        "RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: True, Flow "
        "Control: None");
    BOOST_TEST(u.kind == "link_up");
    BOOST_TEST(u.value.value_or(0) == 100.0);
    // cut inside the speed: link up, no speed
    const auto c = one("[ 604.9] ice 0000:b1:00.0 ens5f0: NIC Link is up 10");
    BOOST_TEST(c.kind == "link_up");
    BOOST_TEST(!c.value.has_value());
}

// irdma prints through ibdev_printk ("<parent driver> <pci> irdma0: ...") and dev_printk of its
// PCI function; errors are listed as driver_message, with the RDMA device when named.
BOOST_AUTO_TEST_CASE(irdma_messages_name_the_rdma_device) {
    const auto e = one("[ 777.7] ice 0000:b1:00.0 irdma0: modify QP 5 to error state failed");
    BOOST_TEST(e.kind == "driver_message");
    BOOST_TEST(e.device == "irdma0");
    BOOST_TEST(e.netdev.empty());
    BOOST_TEST(e.pci == "0000:b1:00.0");
    const auto r = one("[ 778.0] infiniband irdma1: Requesting a reset");
    BOOST_TEST(r.kind == "driver_message");
    BOOST_TEST(r.device == "irdma1");
    BOOST_TEST(none("[ 12.0] ice 0000:b1:00.0 irdma0: created QP 5"));
}

// ---- AER ----

// Before 6.8: https://github.com/geerlingguy/raspberry-pi-pcie-devices/issues/64
// ("pcieport 0000:00:1d.0: AER: Multiple Corrected error received: id=00e8", "pcieport
// 0000:00:1d.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=00e8(Receiver ID)")
BOOST_AUTO_TEST_CASE(aer_corrected_before_6_8) {
    const auto r = one("[ 3.1] pcieport 0000:00:01.1: AER: Corrected error received: 0000:3b:00.0");
    BOOST_TEST(r.kind == "aer_corrected");
    BOOST_TEST(r.pci == "0000:3b:00.0");
    const auto id =
        one("[ 3.499148] pcieport 0000:00:1d.0: AER: Multiple Corrected error received: id=00e8");
    BOOST_TEST(id.kind == "aer_corrected");
    BOOST_TEST(id.pci.empty());  // "id=00e8" names a requester id, not a function
    const auto b = one(
        "[ 3.2] mlx5_core 0000:3b:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
        "(Receiver ID)");
    BOOST_TEST(b.kind == "aer_corrected");
    BOOST_TEST(b.pci == "0000:3b:00.0");
    BOOST_TEST(b.status_text == "severity=Corrected, type=Physical Layer");
    const auto a =
        one("[ 3.3] pcieport 0000:00:1d.0: AER: PCIe Bus Error: severity=Corrected, type=Data Link "
            "Layer, (Transmitter ID)");
    BOOST_TEST(a.kind == "aer_corrected");
    BOOST_TEST(a.pci == "0000:00:1d.0");
}

// Since 6.8: https://github.com/Dasharo/coreboot/pull/815 ("ath10k_pci 0000:06:00.0: PCIe Bus
// Error: severity=Correctable, type=Physical Layer, (Receiver ID)")
BOOST_AUTO_TEST_CASE(aer_correctable_since_6_8) {
    const auto b = one(
        "[Fri Aug 29 20:09:52 2025] ath10k_pci 0000:06:00.0: PCIe Bus Error: severity=Correctable, "
        "type=Physical Layer, (Receiver ID)");
    BOOST_TEST(b.kind == "aer_corrected");
    BOOST_TEST(b.pci == "0000:06:00.0");
    const auto m =
        one("[Fri Aug 29 20:09:52 2025] pcieport 0000:00:1d.3: AER: Multiple Correctable error "
            "message received from 0000:06:00.0");
    BOOST_TEST(m.kind == "aer_corrected");
    BOOST_TEST(m.pci == "0000:06:00.0");
    // the detail lines under them are not events
    BOOST_TEST(
        none("[Fri Aug 29 20:09:52 2025] ath10k_pci 0000:06:00.0:    [ 0] RxErr                  "
             "(First)"));
    BOOST_TEST(
        none("[Fri Aug 29 20:09:52 2025] ath10k_pci 0000:06:00.0:   device [168c:003e] error "
             "status/mask=00001081/00006000"));
}

BOOST_AUTO_TEST_CASE(aer_uncorrected_both_wordings) {
    const auto a = one(
        "[ 9.0] pcieport 0000:00:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:3b:00.0");
    BOOST_TEST(a.kind == "aer_uncorrected");
    BOOST_TEST(a.pci == "0000:3b:00.0");
    const auto b =
        one("[ 9.0] pcieport 0000:00:01.1: AER: Uncorrectable (Fatal) error message received from "
            "0000:3b:00.1");
    BOOST_TEST(b.kind == "aer_uncorrected");
    BOOST_TEST(b.pci == "0000:3b:00.1");
    const auto c =
        one("[ 9.1] mlx5_core 0000:3b:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), "
            "type=Transaction Layer, (Receiver ID)");
    BOOST_TEST(c.kind == "aer_uncorrected");
    BOOST_TEST(c.status_text == "severity=Uncorrected (Fatal), type=Transaction Layer");
}

// ---- processes and GPUs ----

BOOST_AUTO_TEST_CASE(oom_kill_lines) {
    const auto k = one(
        "[ 8000.1] Out of memory: Killed process 4242 (python) total-vm:123456kB, "
        "anon-rss:120000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:512kB oom_score_adj:0");
    BOOST_TEST(k.kind == "process_killed");
    BOOST_TEST(k.pid.value_or(0) == 4242u);
    BOOST_TEST(k.status_text == "out of memory: python");
    const auto o =
        one("[ 8000.1] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
            "global_oom,task_memcg=/user.slice,task=python,pid=4242,uid=1000");
    BOOST_TEST(o.kind == "process_killed");
    BOOST_TEST(o.pid.value_or(0) == 4242u);
    const auto c = one(
        "[ 8000.2] Memory cgroup out of memory: Killed process 977 (pt_main_thread) total-vm:1kB");
    BOOST_TEST(c.pid.value_or(0) == 977u);
    // cut in the pid: no event rather than a wrong pid
    BOOST_TEST(none("[ 8000.1] Out of memory: Killed process 42"));
    const auto cut = one("[ 8000.1] oom-kill:constraint=CONSTRAINT_NONE,task=python,pid=42");
    BOOST_TEST(!cut.pid.has_value());
}

BOOST_AUTO_TEST_CASE(segfault_and_general_protection_fault) {
    const auto s = one(
        "[ 9100.5] python[4242]: segfault at 0 ip 00007f3a1c2b3d4e sp 00007ffd5e6f7a80 error 4 in "
        "libc.so.6[7f3a1c200000+195000]");
    BOOST_TEST(s.kind == "process_killed");
    BOOST_TEST(s.pid.value_or(0) == 4242u);
    BOOST_TEST(s.status_text == "segfault: python");
    const auto g =
        one("[ 9100.6] traps: python[4243] general protection fault ip:7f0 sp:7ff error:0 in "
            "libc.so.6");
    BOOST_TEST(g.pid.value_or(0) == 4243u);
    BOOST_TEST(g.status_text == "general protection fault: python");
}

// https://github.com/NVIDIA/NVSentinel/issues/155 ("NVRM: Xid (PCI:0000:44:00): 79, GPU has
// fallen off the bus"); newer drivers add "pid=..., name=...".
BOOST_AUTO_TEST_CASE(nvidia_xid_is_a_gpu_error) {
    const auto e = one(
        "[ 1843.3] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the "
        "bus.");
    BOOST_TEST(e.kind == "gpu_error");
    BOOST_TEST(e.pci == "0000:3b:00.0");
    BOOST_TEST(e.value.value_or(0) == 79.0);
    BOOST_TEST(e.pid.value_or(0) == 1234u);
    BOOST_TEST(e.status_text == "Xid 79: GPU has fallen off the bus.");
    const auto o = one("[ 1843.3] NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.");
    BOOST_TEST(o.value.value_or(0) == 79.0);
    BOOST_TEST(!o.pid.has_value());
    const auto f = one("[ 49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.");
    BOOST_TEST(f.kind == "gpu_error");
    BOOST_TEST(f.pci == "0000:01:00.0");
}

// ---- not events, shapes ----

BOOST_AUTO_TEST_CASE(benign_lines_are_not_events) {
    BOOST_TEST(none("[ 5.1] mlx5_core 0000:3b:00.0: firmware version: 22.36.1010"));
    BOOST_TEST(
        none("[ 6.9] mlx5_core 0000:b3:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe "
             "x16 link)"));
    BOOST_TEST(none("[32710.060509] IPv6: ADDRCONF(NETDEV_CHANGE): enp1s0f0: link becomes ready"));
    BOOST_TEST(none("gpu01:12345:12401 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[4] via P2P/IPC"));
    BOOST_TEST(none(
        "gpu01:12345:12401 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>"));
    BOOST_TEST(none("-- Boot 6d3f1a9e2c474b8e9d0a3f5e7c1b2a90 --"));
    BOOST_TEST(none("Jan 14 16:20:05 gpu01 systemd[1]: Started Session 3 of user root."));
    BOOST_TEST(none(""));
    BOOST_TEST(none("["));
    BOOST_TEST(none("[ 1234.567890]"));
    BOOST_TEST(none("mlx5_core 0000:3b:00.0 ens1f0np0: Link"));  // cut
}

BOOST_AUTO_TEST_CASE(crlf_spaces_and_launcher_prefixes) {
    const auto c = one("[ 12.5] mlx5_core 0000:3b:00.0 ens1f0np0: Link down\r");
    BOOST_TEST(c.kind == "link_down");
    BOOST_TEST(c.text == "[ 12.5] mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    const auto s = one("   [ 12.5] mlx5_core 0000:3b:00.0 ens1f0np0: Link down   ");
    BOOST_TEST(s.kind == "link_down");
    const auto srun = one("3: [ 12.5] mlx5_core 0000:3b:00.0 ens1f0np0: Link down");
    BOOST_TEST(clock_of(srun) == "boot");
    const auto mpi = one("[1,3]<stdout>:[ 12.5] bnxt_en 0000:41:00.0 ens2f0np0: NIC Link is Down");
    BOOST_TEST(mpi.kind == "link_down");
    BOOST_TEST(mpi.time_s == 12.5);
    const auto j =
        one("0: Jan 14 16:20:05 gpu01 kernel: mlx5_core 0000:3B:00.0 ens1f0np0: Link up");
    BOOST_TEST(j.host == "gpu01");
    BOOST_TEST(j.pci == "0000:3b:00.0");  // lower case, as sysfs names it
}

BOOST_AUTO_TEST_CASE(events_keep_line_numbers_in_an_interleaved_file) {
    const auto ev =
        read({"gpu01:12345:12401 [3] NCCL INFO Connected all rings",
              "[ 100.0] mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
              "gpu01:12345:12401 [3] NCCL INFO comm 0x55 rank 3 nranks 16 - Init COMPLETE",
              "[ 103.0] mlx5_core 0000:3b:00.0 ens1f0np0: Link up"});
    BOOST_TEST_REQUIRE(ev.size() == 2u);
    BOOST_TEST(ev[0].line == 2u);
    BOOST_TEST(ev[1].line == 4u);
    BOOST_TEST(ev[1].source == "t0/dmesg.txt:4");
    BOOST_TEST(ev[1].time_s - ev[0].time_s == 3.0);
}

// pdsh / clush name the host before each line of `dmesg` run on many hosts.
BOOST_AUTO_TEST_CASE(pdsh_and_clush_host_prefixes_name_the_host) {
    for (const char* line :
         {"gpu12: [Wed Jan 14 16:20:05 2026] mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
          "gpu12 | [Wed Jan 14 16:20:05 2026] mlx5_core 0000:3b:00.0 ens1f0np0: Link down"}) {
        const auto e = one(line);
        BOOST_TEST(e.kind == "link_down");
        BOOST_TEST(e.host == "gpu12");
        BOOST_TEST(e.netdev == "ens1f0np0");
    }
}

BOOST_AUTO_TEST_SUITE_END()
