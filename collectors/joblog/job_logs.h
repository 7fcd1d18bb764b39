// The job and kernel log readers: NCCL/RCCL (nccl_log.cpp), UCX (ucx_log.cpp), perftest
// (perftest_log.cpp) and the kernel's messages — dmesg, dmesg -T, journalctl -k (kernel_log.cpp).
// Each reads the lines of one file (or one command's part of a file) and appends a LogEvent for
// every line it recognises (core/log_event.h). Lines are recognised one by one by their content,
// so a file that interleaves ranks, hosts or formats (an NCCL log with dmesg pasted below) is
// read whole. Readers are pure, never throw, and cost time linear in the bytes: every line is
// first tested by a cheap substring test before any parsing (bench: rocehealth_joblog_bench).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/log_event.h"

namespace rh::joblog {

/// The text a reader reads: the file's lines (CR stripped, as bundle TextFile holds them) and
/// the names that make each event's source "<dir>/<file>:<line>".
struct LogText {
    std::string dir;   ///< capture directory's base name ("t0", "logs")
    std::string file;  ///< file name in it ("nccl-rank3.log")
    const std::vector<std::string>& lines;
};

/// What the readers found: events in line order, and notes for the report about lines
/// recognised but not fully read ("logs/nccl.log:88: NCCL WARN line cut short; status not read").
struct LogRead {
    std::vector<LogEvent> events;
    std::vector<std::string> notes;
};

/// True when `line` would be read by one of the readers below (cheap: substring tests only).
/// The bundle reader uses it to recognise a file, or a part of one, as a log.
bool is_log_line(std::string_view line);

/// Every reader over `text` (each line is offered to each reader whose marker it holds).
void read_logs(const LogText& text, LogRead& out);

// One reader each; each appends to `out` what its lines hold. read_logs calls them all, so a
// reader skips (cheaply) every line that is not its own. is_*_line: true for a line the reader
// would turn into an event (substring tests first; used by is_log_line).
void read_nccl(const LogText& text, LogRead& out);
bool is_nccl_line(std::string_view line);
void read_ucx(const LogText& text, LogRead& out);
bool is_ucx_line(std::string_view line);
void read_perftest(const LogText& text, LogRead& out);
bool is_perftest_line(std::string_view line);
void read_kernel(const LogText& text, LogRead& out);
bool is_kernel_line(std::string_view line);

}  // namespace rh::joblog
