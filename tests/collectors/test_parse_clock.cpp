// Clocks inside capture files (collectors/bundle/parse_clock.h): every form `date` prints comes
// out at the same second, a named zone is kept as a zone (spacing only, never a wall clock), a
// `watch` header and `dmesg -T` / journal time stamps are read (the latter as approximate), and
// readings of one capture that disagree are noted, never silently picked.
#include <boost/test/unit_test.hpp>

#include "collectors/bundle/bundle.h"
#include "collectors/bundle/bundle_model.h"
#include "collectors/bundle/parse_clock.h"
#include "collectors/bundle/parse_timestamp.h"

BOOST_AUTO_TEST_SUITE(test_parse_clock)

using rh::bundle::parse_date_line;

namespace {
constexpr double kFri4Dec2026_221516 = 1796422516;  // date -u -d '2026-12-04 22:15:16' +%s

rh::bundle::TextFile text_file(const std::string& name, const std::string& text,
                               const std::string& command = "") {
    rh::bundle::TextFile f{name, {}, "c0", command};
    std::size_t at = 0;
    while (at <= text.size()) {
        const auto nl = text.find('\n', at);
        f.lines.push_back(text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
        if (nl == std::string::npos) break;
        at = nl + 1;
    }
    return f;
}
}  // namespace

BOOST_AUTO_TEST_CASE(every_date_form_in_utc_gives_the_same_second) {
    for (const char* line : {"Fri Dec  4 22:15:16 UTC 2026", "Fri Dec  4 10:15:16 PM UTC 2026",
                             "Fri  4 Dec 22:15:16 UTC 2026", "Fri, 04 Dec 2026 22:15:16 +0000",
                             "Fri, 04 Dec 2026 23:15:16 +0100", "2026-12-04T22:15:16+00:00",
                             "2026-12-04T17:15:16-05:00", "2026-12-04 22:15:16Z",
                             "Fri Dec 4 22:15:16 GMT 2026", "  Fri Dec  4 22:15:16 UTC 2026  "}) {
        BOOST_TEST_CONTEXT(line) {
            const auto r = parse_date_line(line);
            BOOST_REQUIRE(r);
            BOOST_TEST(r->t_s == kFri4Dec2026_221516);
            BOOST_TEST(r->zone.empty());
            BOOST_TEST(!r->approximate);
        }
    }
    // 12 AM is midnight, 12 PM noon (en_US).
    BOOST_TEST(parse_date_line("Fri Dec  4 12:00:00 AM UTC 2026")->t_s ==
               kFri4Dec2026_221516 - (22 * 3600 + 15 * 60 + 16));
    BOOST_TEST(parse_date_line("Fri Dec  4 12:00:00 PM UTC 2026")->t_s ==
               kFri4Dec2026_221516 - (10 * 3600 + 15 * 60 + 16));
}

BOOST_AUTO_TEST_CASE(a_named_zone_or_none_is_kept_as_the_zone_not_as_utc) {
    for (const char* zone : {"CST", "PST", "CET", "CEST", "IST"}) {
        const auto r = parse_date_line(std::string("Thu Mar 13 09:41:02 ") + zone + " 2025");
        BOOST_TEST_CONTEXT(zone) {
            BOOST_REQUIRE(r);
            BOOST_TEST(r->zone == zone);
        }
    }
    // Spacing between two lines of one zone is exact.
    const auto a = parse_date_line("Thu Mar 13 09:41:02 CST 2025");
    const auto b = parse_date_line("Thu  13 Mar 09:41:22 CST 2025");
    BOOST_REQUIRE((a && b));
    BOOST_TEST(b->t_s - a->t_s == 20.0);
    const auto ctime = parse_date_line("Wed Jan 14 16:20:05 2026");
    BOOST_REQUIRE(ctime);
    BOOST_TEST(ctime->zone == "local");
    BOOST_TEST(parse_date_line("2026-12-04 22:15:16")->zone == "local");
}

BOOST_AUTO_TEST_CASE(prose_and_counters_are_not_dates) {
    for (const char* line :
         {"", "rx_prio3_pause: 12", "Mon Tue", "link is up since Dec 4 2026",
          "Dec 4 22:15:16 gpu01 kernel: mlx5_core: link up", "Fri Dec 44 22:15:16 UTC 2026",
          "Fri Dec  4 25:15:16 UTC 2026", "Fri Dec  4 22:15:16 UTC", "Fri Dec  4 22:15:16 utc 2026",
          "Fri Dec  4 13:15:16 PM UTC 2026", "Fri Dec  4 22:15:16 UTC 2026 extra"}) {
        BOOST_TEST_CONTEXT(line) {
            BOOST_TEST(!parse_date_line(line));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_date_line_on_top_of_grep_output_is_read_and_blanked) {
    auto f = text_file("eth2-pfc.txt",
                       "Thu Mar 13 09:41:02 CST 2025\n     rx_pause_ctrl_phy: 0\n     "
                       "rx_prio3_pause: 7\n");
    std::vector<rh::bundle::ClockReading> clocks;
    BOOST_TEST(!rh::bundle::take_clocks(f, clocks));  // counters remain
    BOOST_REQUIRE(clocks.size() == 1u);
    BOOST_TEST(clocks[0].source == "c0/eth2-pfc.txt:1");
    BOOST_TEST(clocks[0].zone == "CST");
    BOOST_TEST(f.lines[0].empty());
    BOOST_TEST(f.lines[1] == "     rx_pause_ctrl_phy: 0");
    // A date further down is data of the other format, not the capture's clock.
    auto later = text_file("x.txt", "rx_prio3_pause: 7\nFri Dec  4 22:15:16 UTC 2026\n");
    clocks.clear();
    BOOST_TEST(!rh::bundle::take_clocks(later, clocks));
    BOOST_TEST(clocks.empty());
    // The output of a `date` command alone is a part that is only a clock.
    auto date = text_file("collect.txt", "Fri Dec  4 22:15:16 UTC 2026\n", "date -u");
    clocks.clear();
    BOOST_TEST(rh::bundle::take_clocks(date, clocks));
    BOOST_REQUIRE(clocks.size() == 1u);
    BOOST_TEST(clocks[0].t_s == kFri4Dec2026_221516);
    // `date +%s` under its command; a number elsewhere is data.
    auto epoch = text_file("collect.txt", "1796422516\n", "date +%s");
    clocks.clear();
    BOOST_TEST(rh::bundle::take_clocks(epoch, clocks));
    BOOST_REQUIRE(clocks.size() == 1u);
    BOOST_TEST(clocks[0].t_s == kFri4Dec2026_221516);
    BOOST_TEST(clocks[0].zone.empty());
    auto number = text_file("count.txt", "1796422516\n");
    clocks.clear();
    BOOST_TEST(!rh::bundle::take_clocks(number, clocks));
}

BOOST_AUTO_TEST_CASE(watch_header_gives_the_time_in_its_right_part) {
    auto f = text_file("watch.txt",
                       "Every 5.0s: ethtool -S ens2f0np0 | grep -E 'pause|discard'   gpu01: Wed "
                       "Jan 14 16:20:05 2026\n\n     rx_pause_ctrl_phy: 0\n");
    std::vector<rh::bundle::ClockReading> clocks;
    rh::bundle::take_clocks(f, clocks);
    BOOST_REQUIRE(clocks.size() == 1u);
    BOOST_TEST(clocks[0].kind == "watch header");
    BOOST_TEST(clocks[0].zone == "local");
    BOOST_TEST(parse_date_line("Wed Jan 14 16:20:05 UTC 2026")->t_s == clocks[0].t_s);
    BOOST_TEST(f.lines[0].empty());
}

BOOST_AUTO_TEST_CASE(dmesg_t_and_journal_times_are_approximate_with_an_error_bar) {
    auto f = text_file("dmesg.txt",
                       "[Wed Jan 14 16:10:00 2026] mlx5_core 0000:3b:00.0: firmware version\n"
                       "[Wed Jan 14 16:19:59 2026] mlx5_core 0000:3b:00.0 ens1f0np0: Link up\n");
    std::vector<rh::bundle::ClockReading> clocks;
    rh::bundle::take_clocks(f, clocks);
    BOOST_REQUIRE(clocks.size() == 1u);  // the last message: nearest the capture
    BOOST_TEST(clocks[0].approximate);
    BOOST_TEST(clocks[0].uncertainty_s >= 60.0);
    BOOST_TEST(clocks[0].source == "c0/dmesg.txt:2");
    auto j =
        text_file("journal.txt", "2026-01-14T16:20:05+0000 gpu01 kernel: mlx5_core: link down\n");
    clocks.clear();
    rh::bundle::take_clocks(j, clocks);
    BOOST_REQUIRE(clocks.size() == 1u);
    BOOST_TEST(clocks[0].kind == "journal");
    BOOST_TEST(clocks[0].zone.empty());
    const auto c = rh::bundle::decide_clock(clocks);
    BOOST_REQUIRE(c);
    BOOST_TEST(c->notes.at(0).find("not for rates") != std::string::npos, c->notes.at(0));
}

BOOST_AUTO_TEST_CASE(sar_lines_are_an_approximate_local_clock) {
    auto f = text_file("sar.txt",
                       "Linux 5.15.0-91-generic (gpu01) \t01/14/2026 \t_x86_64_\t(64 CPU)\n\n"
                       "04:20:00 PM     CPU     %user     %nice   %system\n"
                       "04:20:05 PM     all      3.10      0.00      1.20\n"
                       "Average:        all      3.10      0.00      1.20\n");
    std::vector<rh::bundle::ClockReading> clocks;
    rh::bundle::take_clocks(f, clocks);
    BOOST_REQUIRE(clocks.size() == 1u);
    BOOST_TEST(clocks[0].kind == "sar");
    BOOST_TEST(clocks[0].approximate);
    BOOST_TEST(clocks[0].zone == "local");
    BOOST_TEST(clocks[0].source == "c0/sar.txt:4");
    BOOST_TEST(clocks[0].t_s == parse_date_line("Wed Jan 14 16:20:05 UTC 2026")->t_s);
    // Without the header, a time of day alone is no clock.
    auto bare = text_file("top.txt", "04:20:05 PM     all      3.10      0.00      1.20\n");
    clocks.clear();
    rh::bundle::take_clocks(bare, clocks);
    BOOST_TEST(clocks.empty());
}

BOOST_AUTO_TEST_CASE(disagreeing_clocks_of_one_capture_get_a_note) {
    std::vector<rh::bundle::ClockReading> r;
    r.push_back(*parse_date_line("Fri Dec  4 22:15:16 UTC 2026"));
    r.back().source = "c0/a.txt:1";
    r.push_back(*parse_date_line("Fri Dec  4 22:25:16 UTC 2026"));
    r.back().source = "c0/b.txt:1";
    const auto c = rh::bundle::decide_clock(r);
    BOOST_REQUIRE(c);
    BOOST_TEST(c->chosen.source == "c0/a.txt:1");
    BOOST_REQUIRE(c->notes.size() == 1u);
    BOOST_TEST(c->notes[0].find("600 s after c0/a.txt:1") != std::string::npos, c->notes[0]);
    // Within the time the commands take: no note.
    r[1] = *parse_date_line("Fri Dec  4 22:15:46 UTC 2026");
    r[1].source = "c0/b.txt:1";
    BOOST_TEST(rh::bundle::decide_clock(r)->notes.empty());
    // An exact clock outranks an approximate one, whatever the order.
    r[0].approximate = true;
    BOOST_TEST(rh::bundle::decide_clock(r)->chosen.source == "c0/b.txt:1");
}

BOOST_AUTO_TEST_CASE(the_import_records_the_clock_and_its_line) {
    const auto cap = rh::import_bundle_files(
        "t0", {{"collect.txt",
                "[root@gpu01 ~]# date\nFri Dec  4 10:15:16 PM UTC 2026\n[root@gpu01 ~]# ethtool "
                "-S ens1f0np0 | grep prio\n     rx_prio3_pause: 7\n"}});
    BOOST_REQUIRE(cap.ok());
    BOOST_REQUIRE(cap->clock);
    BOOST_TEST(cap->clock->chosen.t_s == kFri4Dec2026_221516);
    BOOST_TEST(cap->clock->chosen.source == "t0/collect.txt:2");
}

// tests/fixtures/bundles/clock_forms/t0: `date -R`, dmesg -T and journal lines in one file, a
// `watch` screen (local time) and an en_GB `date` 10 minutes later on top of an ethtool grep.
BOOST_AUTO_TEST_CASE(a_capture_with_every_clock_form_says_which_it_used_and_what_disagrees) {
    const auto cap = rh::import_bundle_dir(RH_SOURCE_DIR "/tests/fixtures/bundles/clock_forms/t0");
    BOOST_REQUIRE(cap.ok());
    BOOST_REQUIRE(cap->clock);
    BOOST_TEST(cap->clock->chosen.source == "t0/collect.txt:2");  // the first exact one
    BOOST_TEST(cap->clock->chosen.t_s == kFri4Dec2026_221516);
    std::string notes;
    for (const auto& n : cap->clock->notes) notes += n + "\n";
    BOOST_TEST(notes.find("t0/ethtool-grep-ens1f0np0.txt:1: its time is 614 s after "
                          "t0/collect.txt:2") != std::string::npos,
               notes);
    BOOST_TEST(notes.find("t0/watch.txt:1: its clock (zone local)") != std::string::npos, notes);
    // The clock lines are not counted as data of another format.
    for (const auto& r : cap->recognized) {
        const bool read_as = r.find("ethtool") != std::string::npos ||
                             r.find("clock") != std::string::npos ||
                             r.find("dmesg") != std::string::npos;
        BOOST_TEST(read_as, r);
    }
}

BOOST_AUTO_TEST_CASE(timestamp_file_accepts_the_locales_date_u_and_date_r) {
    for (const char* text : {"Fri Dec  4 10:15:16 PM UTC 2026\n", "Fri  4 Dec 22:15:16 UTC 2026",
                             "Fri, 04 Dec 2026 22:15:16 +0000"}) {
        const auto t = rh::bundle::parse_timestamp_text(text);
        BOOST_TEST_CONTEXT(text) {
            BOOST_REQUIRE(t.ok());
            BOOST_TEST(*t == kFri4Dec2026_221516);
        }
    }
    BOOST_TEST(!rh::bundle::parse_timestamp_text("Fri  4 Dec 22:15:16 CST 2026").ok());
}

BOOST_AUTO_TEST_SUITE_END()
