#include <cstdio>

#include "agent/commands.h"

namespace rh::cli {
int run_check(const std::vector<std::string>&) {
    std::fprintf(stderr, "rocehealth check: not built yet\n");
    return kExitCannotRun;
}
}  // namespace rh::cli
