// rocehealth: the executable's entry point. Everything it does is in the agent/ libraries; the
// commands and their table are in agent/cli/commands.h.
#include "agent/cli/commands.h"

int main(int argc, char** argv) {
    return rh::cli::dispatch(argc, argv);
}
