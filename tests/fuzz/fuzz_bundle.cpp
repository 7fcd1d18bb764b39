// libFuzzer harness: operators' pasted text captures (`diagnose --bundle`). The input is split
// into capture files at lines "=== NAME" (so one input can hold an ethtool -S, an lspci -vv and
// an ibv_devinfo together, as a ticket does); each file goes through content recognition, its
// parser and the merge into a Snapshot, then into samples as diagnose stores them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collectors/bundle/bundle.h"
#include "store/from_snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string all(reinterpret_cast<const char*>(data), size);
    std::vector<std::pair<std::string, std::string>> files;
    std::string name = "capture.txt";
    std::size_t start = 0;
    while (start <= all.size()) {
        auto next = all.find("\n=== ", start);
        const std::size_t end = next == std::string::npos ? all.size() : next;
        files.emplace_back(name, all.substr(start, end - start));
        if (next == std::string::npos) break;
        const auto eol = all.find('\n', next + 5);
        name = all.substr(next + 5, (eol == std::string::npos ? all.size() : eol) - next - 5);
        start = eol == std::string::npos ? all.size() + 1 : eol + 1;
    }
    auto cap = rh::import_bundle_files("fuzz", files);
    if (cap) (void)rh::samples_from_snapshot(cap->snapshot, rh::SampleTime{}, true);
    return 0;
}
