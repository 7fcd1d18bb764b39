#include <cstdio>

#include "agent/commands.h"

namespace rh::cli {
int run_probe(const std::vector<std::string>&) {
    std::fprintf(stderr, "rocehealth probe: not built yet\n");
    return kExitCannotRun;
}
}  // namespace rh::cli
