#include "agent/accept/evidence_text.h"

#include "agent/accept/results_json.h"
#include "agent/accept/text_format.h"

namespace rh::accept {

std::string describe_evidence(const Stage& s, const std::string& pointer) {
    const auto slash = pointer.rfind('/');
    std::size_t index = 0;
    const std::string last = slash == std::string::npos ? "" : pointer.substr(slash + 1);
    const bool numbered =
        !last.empty() && last.find_first_not_of("0123456789") == std::string::npos;
    if (numbered) index = std::stoul(last);
    if (pointer.rfind("/findings/", 0) == 0 && numbered && index < s.findings.size())
        return "finding " + s.findings[index].rule_id + " on " + s.findings[index].host;
    if (pointer.rfind("/counter_timelines/", 0) == 0 && numbered &&
        index < s.counter_timelines.size())
        return s.counter_timelines[index].series + " on " + s.counter_timelines[index].host;
    if (pointer == "/results") return "results";
    if (!numbered) {
        std::string key = pointer.rfind("/results/", 0) == 0 ? pointer.substr(9) : pointer;
        for (char& c : key)
            if (c == '_') c = ' ';
        return key;
    }
    // "/results/KEY/N": name the element by its hosts, fact or status.
    const std::string key = pointer.substr(9, slash - 9);
    const nlohmann::json r = results_to_json(s.results);
    if (!r.contains(key) || !r[key].is_array() || index >= r[key].size()) return pointer;
    const nlohmann::json& e = r[key][index];
    auto str = [&](const char* k) {
        return e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string();
    };
    if (e.contains("src") && e.contains("dst")) {
        std::string d = str("src") + " \xE2\x86\x92 " + str("dst");
        if (!str("op").empty()) d += " " + str("op");
        if (e.contains("size_bytes") && e["size_bytes"].is_number_unsigned())
            d += " " + size_text(e["size_bytes"].get<std::uint64_t>());
        return d;
    }
    if (!str("fact").empty()) return "consistency of " + str("fact");
    if (!str("host").empty()) return key == "senders" ? "sender " + str("host") : str("host");
    return key + " " + std::to_string(index + 1);
}

}  // namespace rh::accept
