#include <cstdio>

#include "agent/commands.h"

namespace rh::cli {
int run_responder(const std::vector<std::string>&) {
    std::fprintf(stderr, "rocehealth responder: not built yet\n");
    return kExitCannotRun;
}
}  // namespace rh::cli
