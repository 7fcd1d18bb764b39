// libFuzzer harness: recordings (JSON lines, store/README.md) as `diagnose --replay` and
// `record --append` read them from disk. Any bytes must give samples or an Error naming the line.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/recording/sample_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    (void)rh::read_samples(in, "fuzz.jsonl");
    return 0;
}
