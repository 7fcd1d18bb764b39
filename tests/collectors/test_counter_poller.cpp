// CounterPoller (collectors/poller/counter_poller.h) on private copies of fixture trees: what a
// periodic agent sees between two discoveries when counter files change, wrap, vanish, become
// unreadable or appear. Values that cannot be read are absent with an error, never 0.
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "collectors/collect.h"
#include "collectors/poller/counter_poller.h"
#include "collectors/sources/table.h"
#include "store/counter_delta.h"

namespace fs = std::filesystem;

namespace rh {
// Names the directory-watch mode in the test log.
std::ostream& operator<<(std::ostream& os, DirWatch w) {
    return os << (w == DirWatch::inotify ? "inotify" : "fstat");
}
}  // namespace rh

BOOST_AUTO_TEST_SUITE(test_counter_poller)

namespace {

// Each directory scenario runs with inotify watches and with the fstat checks (its fallback).
const auto kWatches = boost::unit_test::data::make({rh::DirWatch::inotify, rh::DirWatch::fstat});

const fs::path kFixtures = RH_FIXTURES_DIR;
const std::string kPort = "class/infiniband/mlx5_0/ports/1";
const std::string kNet = "class/net/ens1f0np0";

/// A private copy of fixture tree `name` (its sys/ and the ethtool/ recordings beside it), a
/// discovery pass over it and a poller built on that pass. Removed at the end of the test.
struct Polled {
    fs::path dir;
    rh::SysfsRoot root;
    rh::DirWatch watch;
    rh::Snapshot snap;
    std::unique_ptr<rh::CounterPoller> poller;

    explicit Polled(const std::string& name, rh::DirWatch w = rh::DirWatch::inotify)
        : dir(fs::temp_directory_path() / ("rh_poller_" + std::to_string(getpid())) / name),
          root(dir / "sys"),
          watch(w) {
        fs::remove_all(dir);
        fs::create_directories(dir.parent_path());
        fs::copy(kFixtures / name, dir,
                 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        rebuild();
    }
    ~Polled() { fs::remove_all(dir.parent_path()); }

    fs::path at(const std::string& rel) const { return dir / "sys" / rel; }
    /// The real directory behind `rel` (class/ entries are symlinks into devices/).
    fs::path real(const std::string& rel) const { return fs::canonical(at(rel)); }
    /// Rewrites a file in place (same inode), as the kernel's counters change.
    void write(const std::string& rel, const std::string& text) const {
        std::ofstream out(at(rel), std::ios::trunc);
        out << text;
        BOOST_TEST_REQUIRE(out.good(), "write " << at(rel));
    }
    /// What a caller does on rediscovery: a fresh discovery pass and a poller built on it.
    void rebuild() {
        snap = rh::collect_snapshot({root, {}});
        BOOST_TEST_REQUIRE(!snap.devices.empty());
        poller = std::make_unique<rh::CounterPoller>(root, snap, watch);
    }
    rh::PollResult poll() { return poller->poll(snap); }
    rh::Port& port(std::size_t dev = 0) { return snap.devices.at(dev).ports.at(0); }
};

/// An optional value as text ("nullopt" when absent), so a failed check prints both sides.
template <typename T>
std::string text(const std::optional<T>& v) {
    return v ? std::to_string(*v) : "nullopt";
}

const rh::Counter& counter(const std::vector<rh::Counter>& list, const std::string& name) {
    auto it = std::find_if(list.begin(), list.end(), [&](const auto& c) { return c.name == name; });
    BOOST_TEST_REQUIRE((it != list.end()), "counter " << name);
    return *it;
}

const rh::NormalizedCounter* normalized(const rh::Port& p, const std::string& name) {
    auto it = std::find_if(p.normalized.begin(), p.normalized.end(),
                           [&](const auto& c) { return c.name == name && c.labels.empty(); });
    return it == p.normalized.end() ? nullptr : &*it;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& texts) {
    std::string s;
    for (const auto& t : texts) s += t + " | ";
    return s;
}

/// Device problems mentioning `part`.
std::size_t problems_with(const rh::Device& d, const std::string& part) {
    return static_cast<std::size_t>(
        std::count_if(d.problems.begin(), d.problems.end(),
                      [&](const rh::Note& n) { return n.text.find(part) != std::string::npos; }));
}

/// Every value a poll fills must equal what a fresh discovery pass reads from the same tree.
void expect_same_values(const rh::Snapshot& polled, const rh::Snapshot& fresh) {
    BOOST_TEST_REQUIRE(polled.devices.size() == fresh.devices.size());
    for (std::size_t d = 0; d < fresh.devices.size(); ++d) {
        const auto& pd = polled.devices[d];
        const auto& fd = fresh.devices[d];
        BOOST_TEST_REQUIRE(pd.ports.size() == fd.ports.size());
        for (std::size_t p = 0; p < fd.ports.size(); ++p) {
            BOOST_TEST_CONTEXT(fd.name << " port " << fd.ports[p].number) {
                const auto& pp = pd.ports[p];
                const auto& fp = fd.ports[p];
                BOOST_TEST(pp.state == fp.state);
                BOOST_TEST(text(pp.phys_state_code) == text(fp.phys_state_code));
                for (auto list : {&rh::Port::counters, &rh::Port::hw_counters}) {
                    BOOST_TEST_REQUIRE((pp.*list).size() == (fp.*list).size());
                    for (std::size_t k = 0; k < (fp.*list).size(); ++k) {
                        const auto& a = (pp.*list)[k];
                        const auto& b = (fp.*list)[k];
                        BOOST_TEST_CONTEXT(b.source) {
                            BOOST_TEST(a.name == b.name);
                            BOOST_TEST(text(a.value) == text(b.value));
                            BOOST_TEST(a.source == b.source);
                        }
                    }
                }
                BOOST_TEST_REQUIRE(pp.normalized.size() == fp.normalized.size());
                for (std::size_t k = 0; k < fp.normalized.size(); ++k) {
                    const auto& a = pp.normalized[k];
                    const auto& b = fp.normalized[k];
                    BOOST_TEST_CONTEXT(b.name << " <- " << b.raw_name) {
                        BOOST_TEST(a.name == b.name);
                        BOOST_TEST((a.labels == b.labels));
                        BOOST_TEST(text(a.value) == text(b.value));
                        BOOST_TEST(a.raw_name == b.raw_name);
                        BOOST_TEST(a.source == b.source);
                    }
                }
                BOOST_TEST_REQUIRE(pp.netdev.has_value() == fp.netdev.has_value());
                if (fp.netdev) {
                    BOOST_TEST(text(pp.netdev->mtu_bytes) == text(fp.netdev->mtu_bytes));
                    BOOST_TEST(pp.netdev->operstate == fp.netdev->operstate);
                    BOOST_TEST(text(pp.netdev->rx_bytes) == text(fp.netdev->rx_bytes));
                    BOOST_TEST(text(pp.netdev->tx_dropped) == text(fp.netdev->tx_dropped));
                    BOOST_TEST(text(pp.netdev->carrier_changes) ==
                               text(fp.netdev->carrier_changes));
                }
            }
        }
    }
}

}  // namespace

BOOST_DATA_TEST_CASE(steady_poll_reads_every_kept_file_once_and_matches_discovery, kWatches,
                     watch) {
    Polled t("mlx5_8port", watch);
    BOOST_TEST(t.poller->files_per_pass() > 400u);  // 8 ports: counters, hw_counters, netdev
    // Every file is kept open (and, checked by fstat, their directories).
    BOOST_TEST(t.poller->files_open() >= t.poller->files_per_pass());
    if (watch == rh::DirWatch::inotify)  // the directories are watched, not kept open
        BOOST_TEST(t.poller->files_open() == t.poller->files_per_pass());
    for (int pass = 0; pass < 2; ++pass) {
        const rh::PollResult r = t.poll();
        BOOST_TEST(!r.rediscover, joined(r.rediscover_reasons));
        BOOST_TEST(r.files_read == t.poller->files_per_pass());
        BOOST_TEST(r.files_failed == 0u);
    }
    expect_same_values(t.snap, rh::collect_snapshot({t.root, {}}));

    // Ports whose values did not change keep their normalized counters; changed ones follow.
    t.write("class/infiniband/mlx5_5/ports/1/hw_counters/rp_cnp_handled", "31337\n");
    t.write("class/infiniband/mlx5_2/ports/1/counters/port_rcv_data", "1000\n");
    t.poll();
    BOOST_TEST(text(normalized(t.port(5), "cnp_handled")->value) == "31337");
    BOOST_TEST(text(normalized(t.port(2), "port_rcv_data_bytes")->value) == "4000");
    expect_same_values(t.snap, rh::collect_snapshot({t.root, {}}));
}

BOOST_DATA_TEST_CASE(changed_counter_files_give_new_raw_and_normalized_values, kWatches, watch) {
    Polled t("mlx5_pfc_upstream", watch);
    BOOST_TEST(text(counter(t.port().hw_counters, "rp_cnp_handled").value) == "1498");
    t.write(kPort + "/hw_counters/rp_cnp_handled", "1600\n");
    t.write(kPort + "/counters/port_xmit_data", "5000000000\n");  // 4-byte words
    t.write(kNet + "/statistics/rx_bytes", "123456789\n");
    // Tools that replace a file (new inode, then rename) must be seen too.
    {
        std::ofstream(t.at(kPort + "/hw_counters/np_cnp_sent.new")) << "777\n";
        fs::rename(t.at(kPort + "/hw_counters/np_cnp_sent.new"),
                   t.at(kPort + "/hw_counters/np_cnp_sent"));
    }

    const rh::PollResult r = t.poll();
    BOOST_TEST(!r.rediscover, joined(r.rediscover_reasons));
    BOOST_TEST(r.files_failed == 0u);
    const rh::Port& p = t.port();
    const rh::Counter& cnp = counter(p.hw_counters, "rp_cnp_handled");
    BOOST_TEST(text(cnp.value) == "1600");
    BOOST_TEST(cnp.error.empty());
    BOOST_TEST(cnp.source == t.root.path(kPort + "/hw_counters/rp_cnp_handled").string());
    BOOST_TEST(text(counter(p.hw_counters, "np_cnp_sent").value) == "777");
    BOOST_TEST(text(counter(p.counters, "port_xmit_data").value) == "5000000000");

    const auto* handled = normalized(p, "cnp_handled");
    BOOST_TEST_REQUIRE(handled);
    BOOST_TEST(text(handled->value) == "1600");
    BOOST_TEST(handled->raw_name == "rp_cnp_handled");
    const auto* sent = normalized(p, "cnp_sent");
    BOOST_TEST_REQUIRE(sent);
    BOOST_TEST(text(sent->value) == "777");
    const auto* xmit = normalized(p, "port_xmit_data_bytes");
    BOOST_TEST_REQUIRE(xmit);
    BOOST_TEST(text(xmit->value) == "20000000000");  // x4: bytes
    BOOST_TEST(xmit->unit == "bytes");
    BOOST_TEST_REQUIRE(p.netdev.has_value());
    BOOST_TEST(text(p.netdev->rx_bytes) == "123456789");
    BOOST_TEST(p.netdev->source == t.root.path(kNet).string());

    expect_same_values(t.snap, rh::collect_snapshot({t.root, {}}));
}

BOOST_AUTO_TEST_CASE(a_32_bit_counter_wrapping_between_polls_gives_the_right_delta) {
    Polled t("mlx5_pfc_upstream");
    t.poll();
    const auto* before = normalized(t.port(), "rx_out_of_buffer");
    BOOST_TEST_REQUIRE(before);
    const rh::NormalizedCounter prev = *before;    // a copy: the next poll updates in place
    BOOST_TEST(text(prev.value) == "4294967000");  // 296 below 2^32 (fixture)
    BOOST_TEST(prev.width_bits == 32u);            // mlx5 Q counter

    t.write(kPort + "/hw_counters/out_of_buffer", "200\n");
    const rh::PollResult r = t.poll();
    BOOST_TEST(!r.rediscover, joined(r.rediscover_reasons));
    const auto* cur = normalized(t.port(), "rx_out_of_buffer");
    BOOST_TEST_REQUIRE(cur);
    BOOST_TEST(text(cur->value) == "200");
    const rh::CounterDelta d = rh::delta(&prev, cur);
    BOOST_TEST(rh::to_string(d.kind) == "wrapped");
    BOOST_TEST(text(d.value) == "496");  // 296 up to 2^32, then 200

    // A 64-bit counter going backwards is a reset, not a wrap.
    const rh::NormalizedCounter handled = *normalized(t.port(), "cnp_handled");
    t.write(kPort + "/hw_counters/rp_cnp_handled", "5\n");
    t.poll();
    const rh::CounterDelta reset = rh::delta(&handled, normalized(t.port(), "cnp_handled"));
    BOOST_TEST(rh::to_string(reset.kind) == "reset");
    BOOST_TEST(text(reset.value) == "5");
}

BOOST_DATA_TEST_CASE(removed_port_directory_asks_for_rediscovery_and_values_are_absent, kWatches,
                     watch) {
    Polled t("mlx5_pfc_upstream", watch);
    fs::remove_all(t.real(kPort));

    for (int pass = 0; pass < 2; ++pass) {  // and it keeps saying so
        const rh::PollResult r = t.poll();
        BOOST_TEST(r.rediscover);
        BOOST_TEST(any_contains(r.rediscover_reasons, t.root.path(kPort).string()),
                   joined(r.rediscover_reasons));
        BOOST_TEST(
            any_contains(r.rediscover_reasons, t.root.path(kPort + "/hw_counters").string()));
        BOOST_TEST(r.files_failed > 0u);
    }
    const rh::Port& p = t.port();
    BOOST_TEST(!p.state_code.has_value());
    BOOST_TEST(!p.phys_state_code.has_value());
    for (const auto* list : {&p.counters, &p.hw_counters}) {
        BOOST_TEST_REQUIRE(!list->empty());
        for (const auto& c : *list) {
            BOOST_TEST(!c.value.has_value(), c.name);
            BOOST_TEST(!c.error.empty(), c.name);
        }
    }
    // Normalized counters fed by those files have no value either (never 0); netdev ones stay.
    for (const auto& n : p.normalized)
        if (n.source.find(kPort) != std::string::npos) BOOST_TEST(!n.value.has_value(), n.name);
    BOOST_TEST(p.netdev->rx_bytes.has_value());
    BOOST_TEST(problems_with(t.snap.devices[0], "directory removed") > 0u);
}

BOOST_DATA_TEST_CASE(removed_device_asks_for_rediscovery_and_its_values_are_absent, kWatches,
                     watch) {
    Polled t("mlx5_8port", watch);
    const rh::Device& d3 = t.snap.devices.at(3);
    BOOST_TEST_REQUIRE(d3.name == "mlx5_3");
    const std::string port3 = "class/infiniband/mlx5_3/ports/1";
    fs::remove_all(t.real("class/infiniband/mlx5_3"));
    fs::remove(t.at("class/infiniband/mlx5_3"));  // the class link goes with it

    const rh::PollResult r = t.poll();
    BOOST_TEST(r.rediscover);
    BOOST_TEST(any_contains(r.rediscover_reasons, t.root.path(port3).string()),
               joined(r.rediscover_reasons));
    BOOST_TEST(!any_contains(r.rediscover_reasons, "mlx5_2"));
    for (const auto& c : d3.ports[0].hw_counters) BOOST_TEST(!c.value.has_value(), c.name);
    for (const auto& c : d3.ports[0].counters) BOOST_TEST(!c.value.has_value(), c.name);
    // The other devices are read as before.
    for (const auto& c : t.snap.devices.at(2).ports[0].hw_counters)
        BOOST_TEST(c.value.has_value(), c.name);
}

BOOST_DATA_TEST_CASE(removed_netdev_directory_asks_for_rediscovery_and_its_values_are_absent,
                     kWatches, watch) {
    Polled t("mlx5_pfc_upstream", watch);
    fs::remove_all(t.real(kNet));
    const rh::PollResult r = t.poll();
    BOOST_TEST(r.rediscover);
    BOOST_TEST(any_contains(r.rediscover_reasons, t.root.path(kNet).string()),
               joined(r.rediscover_reasons));
    const rh::Netdev& n = *t.port().netdev;
    BOOST_TEST(!n.mtu_bytes.has_value());
    BOOST_TEST(!n.rx_bytes.has_value());
    BOOST_TEST(!n.carrier_changes.has_value());
    BOOST_TEST(n.operstate.empty());
    BOOST_TEST(text(counter(t.port().hw_counters, "rp_cnp_handled").value) == "1498");
}

BOOST_DATA_TEST_CASE(unreadable_counter_file_is_absent_with_an_error_naming_it, kWatches, watch) {
    Polled t("mlx5_pfc_upstream", watch);
    const std::string seq = kPort + "/hw_counters/out_of_sequence";
    const std::string wait = kPort + "/counters/port_xmit_wait";
    const std::string ack = kPort + "/hw_counters/local_ack_timeout_err";
    fs::remove(t.at(seq));
    fs::create_directory(t.at(seq));  // a directory where the counter was
    t.write(wait, "N/A (no PMA)\n");  // what show_pma_counter() prints when the MAD fails
    fs::remove(t.at(ack));

    const rh::PollResult r = t.poll();
    BOOST_TEST(!r.rediscover, joined(r.rediscover_reasons));  // same names, values absent
    BOOST_TEST(r.files_failed == 2u);  // the directory and the removed file; N/A is read
    const rh::Port& p = t.port();
    const rh::Counter& s = counter(p.hw_counters, "out_of_sequence");
    BOOST_TEST(!s.value.has_value());
    BOOST_TEST(s.error.find(t.root.path(seq).string()) != std::string::npos, s.error);
    BOOST_TEST(s.error.find("directory") != std::string::npos, s.error);
    const rh::Counter& a = counter(p.hw_counters, "local_ack_timeout_err");
    BOOST_TEST(!a.value.has_value());
    BOOST_TEST(a.error.find(t.root.path(ack).string()) != std::string::npos, a.error);
    const rh::Counter& w = counter(p.counters, "port_xmit_wait");
    BOOST_TEST(!w.value.has_value());
    BOOST_TEST(w.error.find("N/A (no PMA)") != std::string::npos, w.error);
    BOOST_TEST(problems_with(t.snap.devices[0], t.root.path(seq).string()) == 1u);

    for (const std::string name : {"out_of_sequence", "ack_timeouts"}) {
        const auto* n = normalized(p, name);
        BOOST_TEST((!n || !n->value.has_value()), name);
    }
    BOOST_TEST(text(normalized(p, "cnp_handled")->value) == "1498");  // the others are still read

    // Readable again: the value is back and the note is gone.
    fs::remove(t.at(seq));
    t.write(seq, "42\n");
    t.poll();
    BOOST_TEST(text(counter(t.port().hw_counters, "out_of_sequence").value) == "42");
    BOOST_TEST(problems_with(t.snap.devices[0], t.root.path(seq).string()) == 0u);
    BOOST_TEST(text(normalized(t.port(), "out_of_sequence")->value) == "42");
}

BOOST_DATA_TEST_CASE(new_counter_file_asks_for_rediscovery_until_rediscovered, kWatches, watch) {
    Polled t("mlx5_pfc_upstream", watch);
    const std::string added = kPort + "/hw_counters/rx_dct_connect_new";
    t.write(added, "9\n");
    for (int pass = 0; pass < 2; ++pass) {
        const rh::PollResult r = t.poll();
        BOOST_TEST(r.rediscover);
        BOOST_TEST(any_contains(r.rediscover_reasons, t.root.path(added).string()),
                   joined(r.rediscover_reasons));
        BOOST_TEST(r.files_failed == 0u);  // the known counters are still read
    }
    BOOST_TEST(text(normalized(t.port(), "cnp_handled")->value) == "1498");

    // After rediscovery the new counter is polled like the others.
    t.rebuild();
    t.write(added, "10\n");
    const rh::PollResult r = t.poll();
    BOOST_TEST(!r.rediscover, joined(r.rediscover_reasons));
    BOOST_TEST(text(counter(t.port().hw_counters, "rx_dct_connect_new").value) == "10");
}

BOOST_AUTO_TEST_CASE(snapshot_of_another_shape_is_refused) {
    Polled t("mlx5_pfc_upstream");
    rh::Snapshot other = rh::collect_snapshot({rh::SysfsRoot(kFixtures / "mlx5_8port/sys"), {}});
    const rh::PollResult r = t.poller->poll(other);
    BOOST_TEST(r.rediscover);
    BOOST_TEST(any_contains(r.rediscover_reasons, "not the one this poller was built from"));
    BOOST_TEST(r.files_read == 0u);
}

// Per-source figures (rocehealth_collector_success / _duration_seconds): every source the pass
// reads is timed; a fixture without a DCB or netlink recording has no data there (not a
// failure); a counter file discovery found and the pass cannot read fails its source only.
BOOST_AUTO_TEST_CASE(each_source_is_timed_and_fails_only_on_its_own_reads) {
    Polled t("mlx5_pfc_upstream");
    auto src = [](const rh::PollResult& r, rh::Source s) {
        return r.sources[static_cast<std::size_t>(s)];
    };
    const rh::PollResult ok = t.poll();
    for (const rh::Source s : {rh::Source::rdma_sysfs, rh::Source::netdev_sysfs,
                               rh::Source::ethtool_stats, rh::Source::dcb}) {
        BOOST_TEST_CONTEXT(rh::to_string(s)) {
            BOOST_TEST(src(ok, s).read);
            BOOST_TEST(src(ok, s).success);
            BOOST_TEST(src(ok, s).duration_s > 0.0);
            BOOST_TEST(src(ok, s).duration_s < 1.0);
        }
    }
    BOOST_TEST(!fs::exists(t.dir / "dcb"));  // no recording: no data, still a success

    fs::remove(t.at(kPort + "/hw_counters/out_of_sequence"));
    const rh::PollResult bad = t.poll();
    BOOST_TEST(!src(bad, rh::Source::rdma_sysfs).success);
    BOOST_TEST(src(bad, rh::Source::netdev_sysfs).success);
    BOOST_TEST(src(bad, rh::Source::ethtool_stats).success);
    BOOST_TEST(rh::to_string(rh::Source::ethtool_stats) == "ethtool_stats");
}

// The source table (collectors/sources/table.h) is the one list of kernel sources: one row per
// Source, each label once, and a steady-state pass reads only the rows marked per_pass.
BOOST_AUTO_TEST_CASE(source_table_has_one_row_per_source_and_marks_what_a_poll_reads) {
    std::vector<int> rows(rh::kSourceCount, 0);
    std::set<std::string_view> names;
    for (const rh::SourceRow& row : rh::source_table()) {
        ++rows.at(static_cast<std::size_t>(row.id));
        names.insert(row.name);
        BOOST_TEST(rh::to_string(row.id) == row.name);
    }
    for (std::size_t i = 0; i < rh::kSourceCount; ++i)
        BOOST_TEST(rows[i] == 1, "source " << i << " has " << rows[i] << " rows");
    BOOST_TEST(names.size() == rh::kSourceCount);

    Polled t("mlx5_pfc_upstream");
    const rh::PollResult r = t.poll();
    std::size_t read = 0;
    for (const rh::SourceRow& row : rh::source_table())
        if (r.sources[static_cast<std::size_t>(row.id)].read) {
            ++read;
            BOOST_TEST(row.per_pass, row.name << " is read by a poll but not marked per_pass");
        }
    BOOST_TEST(read >= 4u);  // rdma_sysfs, netdev_sysfs, ethtool_stats, dcb at least
}

BOOST_AUTO_TEST_SUITE_END()  // test_counter_poller
