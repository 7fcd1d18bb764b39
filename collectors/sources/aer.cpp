#include "collectors/sources/aer.h"

namespace rh {

namespace {

std::string_view trim_aer_field(std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
}

}  // namespace

bool next_aer_line(std::string_view& text, AerLine& out) {
    while (!text.empty()) {
        const auto nl = text.find('\n');
        const std::string_view line = trim_aer_field(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        if (line.empty()) continue;
        const auto sp = line.find_last_of(" \t");
        out.count.reset();
        out.error.clear();
        if (sp == std::string_view::npos) {
            out.name = line;
            out.error = "no count on the line";
        } else {
            out.name = trim_aer_field(line.substr(0, sp));
            if (auto v = parse_u64(line.substr(sp + 1)))
                out.count = *v;
            else
                out.error = "not a u64: '" + std::string(line.substr(sp + 1)) + "'";
        }
        return true;
    }
    return false;
}

std::vector<Counter> parse_aer(std::string_view text, const std::string& file,
                               const std::string& source) {
    std::vector<Counter> out;
    for (AerLine l; next_aer_line(text, l);)
        out.push_back(Counter{file + "/" + std::string(l.name), l.count, source, l.error});
    return out;
}

void store_aer_total(Counter& c, std::string_view text, const std::string& path) {
    if (auto v = parse_u64(text)) {
        c.value = *v;
        c.error.clear();
    } else {
        c.value.reset();
        c.error = Error{"parse", path, 0, v.error().detail}.message();
    }
}

void read_aer(const SysfsRoot& sysfs, PcieLink& link) {
    for (const char* file : {"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"}) {
        const std::string rel = link.sysfs_path + "/" + file;
        auto text = sysfs.read_text(rel);
        if (!text) continue;  // not AER-capable, or kernel < 4.19
        auto cs = parse_aer(*text, file, sysfs.path_text(rel));
        link.aer.insert(link.aer.end(), cs.begin(), cs.end());
    }
    for (const char* file : {"aer_rootport_total_err_cor", "aer_rootport_total_err_fatal",
                             "aer_rootport_total_err_nonfatal"}) {
        const std::string rel = link.sysfs_path + "/" + file;
        if (!sysfs.exists(rel)) continue;
        Counter c{file, std::nullopt, sysfs.path_text(rel), {}};
        if (auto t = sysfs.read_text(rel))
            store_aer_total(c, *t, c.source);
        else
            c.error = t.error().message();
        link.aer.push_back(std::move(c));
    }
}

}  // namespace rh
