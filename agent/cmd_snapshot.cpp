#include <cstdio>

#include "agent/commands.h"

namespace rh::cli {
int run_snapshot(const std::vector<std::string>&) {
    std::fprintf(stderr, "rocehealth snapshot: not built yet\n");
    return kExitCannotRun;
}
}  // namespace rh::cli
