// The acceptance report renderers: report.html (self-contained, every failing criterion linked
// to evidence that exists on the page, hostile strings escaped), report.md, the SVG primitives,
// and rendering a report directory.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "agent/accept/render_dir.h"
#include "agent/accept/render_html.h"
#include "agent/accept/render_md.h"
#include "agent/accept/results_html.h"
#include "agent/accept/svg.h"
#include "agent/accept/text_format.h"
#include "tests/accept/interrupted_report.h"
#include "tests/support/test_support.h"

BOOST_AUTO_TEST_SUITE(test_accept_report_render)

using nlohmann::json;
using namespace rh::accept;

namespace {

const std::string kFixture = std::string(RH_FIXTURES_DIR) + "/accept/report.json";
const std::string kHostile = "<script>alert(1)</script>|x";

json fixture_json() {
    return json::parse(rh::test::slurp(kFixture));
}

Report read(const json& j) {
    ParsedReport p = report_from_json(j);
    std::string errors;
    for (const auto& e : p.errors) errors += e.text() + "\n";
    BOOST_TEST_REQUIRE(p.report.has_value(), errors);
    return *p.report;
}

/// The fixture with host gpu-r1-03 renamed to a string that would run a script if pasted raw,
/// a finding summary that would add an image, and a fabric name that would close the title.
Report hostile_report() {
    std::string text = rh::test::slurp(kFixture);
    // Hrefs must stay safe paths, so rename the host everywhere but in them.
    for (std::size_t p; (p = text.find("gpu-r1-03")) != std::string::npos;)
        text.replace(p, 9, "@@HOST@@");
    json j = json::parse(text);
    for (auto& s : j["stages"])
        for (auto& l : s["evidence_links"]) l["href"] = "recordings/host.jsonl";
    std::string dumped = j.dump();
    const std::string hostile_json = json(kHostile).dump();  // quoted, escaped
    for (std::size_t p; (p = dumped.find("@@HOST@@")) != std::string::npos;)
        dumped.replace(p, 8, hostile_json.substr(1, hostile_json.size() - 2));
    j = json::parse(dumped);
    j["stages"][4]["findings"][0]["summary"] =
        "\"><img src=x onerror=alert(2)> [link](javascript:x)";
    j["spec"]["name"] = "</title><script>alert(3)</script>";
    return read(j);
}

std::set<std::string> matches(const std::string& text, const std::regex& re) {
    std::set<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
         ++it)
        out.insert((*it)[1].str());
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(html_has_the_verdict_first_and_every_stage) {
    const std::string html = render_html(read(fixture_json()));
    const auto verdict = html.find("id=\"verdict\"");
    BOOST_TEST_REQUIRE(verdict != std::string::npos);
    BOOST_TEST(html.find("<div class=\"big\">FAIL</div>") != std::string::npos);
    BOOST_TEST(html.find("1 of 7 stages failed: Incast (2 to 1).") != std::string::npos);
    std::size_t last = verdict;
    for (const char* id : {"inventory", "idle_latency", "bandwidth", "concurrency", "incast",
                           "fault", "rkey_revocation"}) {
        const auto at = html.find("<section class=\"card\" id=\"stage-" + std::string(id) + "\">");
        BOOST_TEST(at != std::string::npos, id);
        BOOST_TEST(at > last, id << " out of order");
        last = at;
    }
}

BOOST_AUTO_TEST_CASE(html_is_self_contained) {
    const std::string html = render_html(read(fixture_json()));
    BOOST_TEST(html.find("<script") == std::string::npos);
    BOOST_TEST(html.find("<link") == std::string::npos);
    BOOST_TEST(html.find("src=") == std::string::npos);
    BOOST_TEST(html.find("url(") == std::string::npos);
    BOOST_TEST(html.find("@import") == std::string::npos);
    // The only absolute URL is the SVG namespace name (an identifier, never fetched).
    const auto urls = matches(html, std::regex("(https?://[^\"' <]+)"));
    BOOST_TEST(urls == std::set<std::string>{"http://www.w3.org/2000/svg"});
    BOOST_TEST(html.find("Content-Security-Policy\" content=\"default-src 'none'") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(every_in_page_link_has_its_target) {
    const std::string html = render_html(read(fixture_json()));
    const auto ids = matches(html, std::regex("id=\"([^\"]+)\""));
    const auto targets = matches(html, std::regex("href=\"#([^\"]+)\""));
    BOOST_TEST(targets.size() > 20u);
    for (const auto& t : targets) BOOST_TEST(ids.count(t) == 1u, "#" << t << " has no element");
    // And ids are unique.
    std::size_t id_attrs = 0;
    for (std::size_t p = 0; (p = html.find(" id=\"", p)) != std::string::npos; ++p) ++id_attrs;
    BOOST_TEST(id_attrs == ids.size());
}

BOOST_AUTO_TEST_CASE(failing_criteria_are_highlighted_and_link_to_their_evidence) {
    const std::string html = render_html(read(fixture_json()));
    // The Jain criterion row (incast criteria[1]) is marked and links to sender gpu-r1-03.
    const auto row = html.find("<tr id=\"stage-incast-criteria-1\" class=\"bad\">");
    BOOST_TEST_REQUIRE(row != std::string::npos);
    const std::string tr = html.substr(row, html.find("</tr>", row) - row);
    BOOST_TEST(tr.find("Jain fairness index of sender goodput") != std::string::npos);
    BOOST_TEST(tr.find("0.849") != std::string::npos);
    BOOST_TEST(tr.find("<a href=\"#stage-incast-results-senders-1\">sender gpu-r1-03</a>") !=
                   std::string::npos,
               tr);
    // The evidence row itself is highlighted.
    BOOST_TEST(html.find("<tr id=\"stage-incast-results-senders-1\" class=\"bad\">") !=
               std::string::npos);
    // The victim criterion links to the pause storm finding card, marked too.
    BOOST_TEST(
        html.find("href=\"#stage-incast-findings-0\">finding pause_storm on gpu-r1-01</a>") !=
        std::string::npos);
    BOOST_TEST(html.find("class=\"finding sev-warning bad\" id=\"stage-incast-findings-0\"") !=
               std::string::npos);
    // Passing criteria are not marked.
    BOOST_TEST(html.find("<tr id=\"stage-incast-criteria-0\">") != std::string::npos);
    // The summary lists the 4 failing criteria.
    const auto fails = html.find("<h3>Failing criteria</h3>");
    BOOST_TEST_REQUIRE(fails != std::string::npos);
    const std::string list = html.substr(fails, html.find("</ul>", fails) - fails);
    std::size_t items = 0;
    for (std::size_t p = 0; (p = list.find("<li>", p)) != std::string::npos; ++p) ++items;
    BOOST_TEST(items == 4u);
    BOOST_TEST(list.find("measured <b>412.7 µs</b>, required &lt;= 200 µs") != std::string::npos,
               list);
}

BOOST_AUTO_TEST_CASE(html_draws_the_charts) {
    const std::string html = render_html(read(fixture_json()));
    for (const char* title :
         {"Latency CDF, 64 B messages, all pairs", "Latency CDF, 1 MiB messages, all pairs",
          "p99 write latency, 64 B", "p99 read latency, 1 MiB",
          "Goodput per sender into gpu-r1-01 (2 to 1)", "Throughput per pair, one pair at a time",
          "pfc_pause_duration_us (device=mlx5_0 port=1 priority=3)",
          "port_state_code (device=mlx5_0 port=1)"})
        BOOST_TEST(html.find("<title>" + std::string(title) + "</title>") != std::string::npos,
                   title);
    std::size_t svgs = 0;
    for (std::size_t p = 0; (p = html.find("<svg ", p)) != std::string::npos; ++p) ++svgs;
    // 4 CDFs + 8 heat maps (2 ops x 4 sizes) + bandwidth, concurrency and incast bars + 3 incast
    // timeline charts (pause, CNPs, retransmits) + 2 fault timeline charts (port state, traffic).
    BOOST_TEST(svgs == 20u);
    // Findings show their timelines with times since the run started.
    BOOST_TEST(html.find("3 completions with IBV_WC_RETRY_EXC_ERR") != std::string::npos);
    BOOST_TEST(html.find("<td class=\"num\">+361.0 s</td>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(hostile_strings_are_escaped_in_html) {
    const std::string html = render_html(hostile_report());
    BOOST_TEST(html.find("<script") == std::string::npos);
    BOOST_TEST(html.find("<img") == std::string::npos);
    BOOST_TEST(html.find("</title><script") == std::string::npos);
    BOOST_TEST(html.find("&lt;script&gt;alert(1)&lt;/script&gt;|x") != std::string::npos);
    BOOST_TEST(html.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
    // Inside the SVG charts too (heat map labels, bar labels, legends).
    const auto svg = html.find("<svg ");
    BOOST_TEST(html.find("&lt;script&gt;", svg) != std::string::npos);
    // No attribute was broken open: every quote inside a tag pairs up.
    for (std::size_t p = 0; (p = html.find('<', p)) != std::string::npos; ++p) {
        const auto end = html.find('>', p);
        const std::string tag = html.substr(p, end - p);
        BOOST_TEST_REQUIRE(std::count(tag.begin(), tag.end(), '"') % 2 == 0, tag);
    }
}

BOOST_AUTO_TEST_CASE(markdown_summary_for_a_ticket) {
    const std::string md = render_md(read(fixture_json()));
    BOOST_TEST(md.rfind("# RoCE fabric acceptance: FAIL \xE2\x80\x94 rack1-roce-fabric\n", 0) == 0u,
               md.substr(0, 80));
    BOOST_TEST(md.find("| 5 | Incast (2 to 1) | **FAIL** | 1/5 | 1/1 |") != std::string::npos, md);
    BOOST_TEST(md.find("| 2 | Idle latency baseline | pass | 10/10 | 0/0 |") != std::string::npos);
    BOOST_TEST(
        md.find("- **Incast (2 to 1)**: victim p99 latency during the incast \xE2\x80\x94 measured "
                "412.7 µs, required \\<= 200 µs") != std::string::npos);
    BOOST_TEST(
        md.find(
            "- **Idle latency baseline** (pass) \xE2\x80\x94 worst-pair p99 in µs: write 64 B 2.6, "
            "4 KiB 3.4, 64 KiB 9.5, 1 MiB 97.5; read 64 B 4.3, 4 KiB 5.5, 64 KiB 11.6, 1 MiB "
            "99.8\n") != std::string::npos);
    BOOST_TEST(md.find("- [error] **retransmits** on gpu-r1-03 mlx5\\_0 (Incast (2 to 1))") !=
               std::string::npos);
    BOOST_TEST(
        md.find("2 to 1 into gpu-r1-01: aggregate 86.1 Gb/s (86.1 % of link), Jain 0.849, 3 error "
                "completions; victim p99 2.5 \xE2\x86\x92 412.7 µs") != std::string::npos);
    BOOST_TEST(md.find("link gpu-r1-03 ens1f0np0: link recovery 2.40 s, traffic recovery 3.90 s "
                       "(gpu-r1-01 -\\> gpu-r1-03)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(fault_results_show_both_recoveries) {
    const std::string html = render_html(read(fixture_json()));
    const auto at = html.find("id=\"stage-fault\"");
    BOOST_TEST_REQUIRE(at != std::string::npos);
    const std::string fault = html.substr(at, html.find("id=\"stage-rkey_revocation\"") - at);
    for (const char* part :
         {"<th>link recovery (up to port ACTIVE)</th><td class=\"strong\">2.40 s</td>",
          "<th>traffic recovery (up to traffic back)</th><td class=\"strong\">3.90 s</td>",
          "<th>connections tried</th><td>12</td>",
          "<th>64 B WRITE p50 before / after</th><td>2.1 / 2.2 µs</td>"})
        BOOST_TEST(fault.find(part) != std::string::npos, part);
}

BOOST_AUTO_TEST_CASE(hostile_strings_are_escaped_in_markdown) {
    const std::string md = render_md(hostile_report());
    // Every '<' is backslash-escaped, so no tag can open.
    for (std::size_t p = 0; (p = md.find('<', p)) != std::string::npos; ++p)
        BOOST_TEST((p > 0 && md[p - 1] == '\\'), md.substr(p, 20));
    BOOST_TEST(md.find("\\<script\\>alert(1)\\</script\\>\\|x") != std::string::npos);
    BOOST_TEST(md.find("\\[link\\](javascript:x)") != std::string::npos);
    // Table rows keep their cell count: a '|' in a value is escaped.
    std::istringstream lines(md);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("| ", 0) != 0 || line.find("---") != std::string::npos) continue;
        std::size_t cells = 0;
        for (std::size_t i = 0; i < line.size(); ++i)
            cells += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
        BOOST_TEST((cells == 6u || cells == 5u), line);
    }
}

BOOST_AUTO_TEST_CASE(svg_ticks_and_gaps) {
    BOOST_TEST(svg::linear_ticks(0, 97, 5) == (std::vector<double>{0, 20, 40, 60, 80}));
    BOOST_TEST(svg::log_ticks(1.5, 120) == (std::vector<double>{2, 5, 10, 20, 50, 100}));
    svg::LineChart c;
    c.title = "t";
    svg::Series s;
    s.name = "a<b";
    s.color = "#000";
    s.points = {{0, 1.0}, {1, 2.0}, {2, std::nullopt}, {3, 3.0}, {4, 4.0}};
    c.series.push_back(s);
    const std::string out = svg::line_chart(c);
    const auto d = out.find(" d=\"");
    BOOST_TEST_REQUIRE(d != std::string::npos);
    const std::string path = out.substr(d, out.find('"', d + 4) - d);
    BOOST_TEST(std::count(path.begin(), path.end(), 'M') == 2);  // the missing value is a gap
    BOOST_TEST(out.find("a&lt;b") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(escaping_helpers) {
    BOOST_TEST(html_escape("<a href='x'>&\"</a>\x01") ==
               "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;\xEF\xBF\xBD");
    BOOST_TEST(md_escape("a|b *c* [d](e) <f>\nnext") == "a\\|b \\*c\\* \\[d\\](e) \\<f\\> next");
    BOOST_TEST(size_text(65536) == "64 KiB");
    BOOST_TEST(size_text(1500) == "1500 B");
    BOOST_TEST(scalar_text(0.849, "fraction") == "84.9 %");
    BOOST_TEST(scalar_text(412.7, "us") == "412.7 µs");
    BOOST_TEST(scalar_text(0.9, "") == "0.9");
    BOOST_TEST(scalar_text(1810.25, "us") == "1810.25 µs");
    BOOST_TEST(scalar_text(std::monostate{}, "us") == "not measured");
}

BOOST_AUTO_TEST_CASE(render_dir_writes_both_files_or_names_the_problem) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("rh-accept-render-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kFixture, dir / "report.json",
                               std::filesystem::copy_options::overwrite_existing);
    const RenderOutcome ok = render_report_dir(dir);
    BOOST_TEST(ok.errors.empty());
    BOOST_TEST((ok.verdict == Verdict::fail));
    BOOST_TEST(rh::test::slurp(dir / "report.html").find("<div class=\"big\">FAIL</div>") !=
               std::string::npos);
    BOOST_TEST(rh::test::slurp(dir / "report.md").rfind("# RoCE fabric acceptance: FAIL", 0) == 0u);

    json bad = fixture_json();
    bad["stages"][2]["results"]["pairs"][1]["fraction"] = "high";
    std::ofstream(dir / "report.json") << bad.dump();
    std::filesystem::remove(dir / "report.html");
    const RenderOutcome no = render_report_dir(dir);
    BOOST_TEST(!no.verdict.has_value());
    BOOST_TEST_REQUIRE(no.errors.size() == 1u);
    BOOST_TEST(no.errors[0] ==
               (dir / "report.json").string() +
                   ": stages[2].results.pairs[1].fraction: expected a number, got a "
                   "string (\"high\")");
    BOOST_TEST(!std::filesystem::exists(dir / "report.html"));  // nothing half-written
    std::filesystem::remove_all(dir);
}

// A report.html that cannot be replaced (here a non-empty directory of that name): the error
// says why (not "Success", the status of cleaning up the temporary file).
BOOST_AUTO_TEST_CASE(a_failed_write_says_why) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("rh-accept-write-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "report.html" / "x");
    const std::string e = write_file_atomically(dir / "report.html", "<html></html>");
    BOOST_TEST(e.find("cannot rename") != std::string::npos, e);
    BOOST_TEST(e.find("Success") == std::string::npos, e);
    BOOST_TEST(e.find("directory") != std::string::npos, e);  // EISDIR / ENOTEMPTY text
    BOOST_TEST(!std::filesystem::exists(dir / "report.html.tmp"));
    std::filesystem::remove_all(dir);
}

// Issue 16 §3: what a user opening the report of a run stopped by SIGTERM needs to see — that it
// is incomplete, where and why it stopped, what was measured before, and what never ran.
BOOST_AUTO_TEST_CASE(an_interrupted_run_renders_incomplete_naming_the_stage) {
    const Report r = read(rh::test::interrupted_during_bandwidth(fixture_json()));
    const std::string html = render_html(r);
    BOOST_TEST(html.find("<div class=\"big\">INCOMPLETE</div>") != std::string::npos);
    BOOST_TEST(html.find("The run was stopped: interrupted by SIGTERM 12 s into the stage (stage "
                         "Bandwidth per pair)") != std::string::npos);
    BOOST_TEST(html.find("4 stages not run") != std::string::npos);
    std::size_t not_run = 0;
    for (std::size_t p = 0;
         (p = html.find("<span class=\"badge not_run\">not run</span>", p)) != std::string::npos;
         ++p)
        ++not_run;
    BOOST_TEST(not_run == 8u);  // each not-run stage: its table row and its section heading
    // Measured before the stop: the latency rows and the bandwidth pairs done.
    BOOST_TEST(html.find(">97.4<") != std::string::npos);
    BOOST_TEST(html.find("id=\"" + evidence_anchor(StageId::idle_latency, "/results/latency/0") +
                         "\"") != std::string::npos);

    const std::string md = render_md(r);
    BOOST_TEST(md.rfind("# RoCE fabric acceptance: INCOMPLETE", 0) == 0u);
    BOOST_TEST(md.find("- **Interrupted**: interrupted by SIGTERM 12 s into the stage (stage "
                       "bandwidth); what was measured before is kept; not run: ") !=
               std::string::npos);
    BOOST_TEST(md.find("| Bandwidth per pair | error |") != std::string::npos);

    const auto dir = std::filesystem::temp_directory_path() /
                     ("rh-accept-interrupted-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "report.json")
        << rh::test::interrupted_during_bandwidth(fixture_json()).dump(2);
    const RenderOutcome out = render_report_dir(dir);
    BOOST_TEST(out.errors.empty());
    BOOST_TEST((out.verdict == Verdict::incomplete));
    BOOST_TEST(rh::test::slurp(dir / "report.html").find("INCOMPLETE") != std::string::npos);
    BOOST_TEST(rh::test::slurp(dir / "report.md").find("**Interrupted**") != std::string::npos);
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()  // test_accept_report_render
