// libFuzzer harness: the job and kernel log readers (collectors/joblog: NCCL, UCX, perftest,
// kernel) over pasted log text. The input is split into lines as the bundle reader splits a
// capture file (collectors/bundle/bundle.cpp split_lines: "\n" ends a line, a lone "\r" does when
// the text has no "\n", trailing "\r"s dropped), then read_logs and is_log_line run over it.
// Besides crashes and UB, it checks what the reader interface promises: events in line order,
// each naming a line of the input, its text at most 400 bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/joblog/job_logs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    if (text.find('\n') == std::string::npos)
        for (char& c : text)
            if (c == '\r') c = '\n';
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        while (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
        start = end + 1;
    }
    rh::joblog::LogRead out;
    rh::joblog::read_logs({"fuzz", "job.log", lines}, out);
    unsigned last = 0;
    for (const rh::LogEvent& e : out.events) {
        if (e.line < 1 || e.line > lines.size() || e.line < last || e.text.size() > 400)
            __builtin_trap();
        last = e.line;
    }
    for (const std::string& l : lines) (void)rh::joblog::is_log_line(l);
    return 0;
}
