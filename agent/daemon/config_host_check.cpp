#include "agent/daemon/config_host_check.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace rh::agent {

namespace {

/// "" when a TCP socket binds `host` (an IP literal) on a free port, else the reason.
std::string bind_problem(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    addrinfo* res = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), "0", &hints, &res); rc != 0)
        return gai_strerror(rc);
    std::string problem;
    const int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0)
        problem = std::strerror(errno);
    else if (bind(fd, res->ai_addr, res->ai_addrlen) != 0)
        problem = std::strerror(errno);
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    return problem;
}

/// "" when <sysfs_root>/class/infiniband/<device> exists, else the sentence naming what does.
std::string device_problem(const std::string& sysfs_root, const std::string& device) {
    const std::filesystem::path dir = std::filesystem::path(sysfs_root) / "class" / "infiniband";
    std::error_code ec;
    if (std::filesystem::exists(dir / device, ec)) return "";
    std::vector<std::string> present;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        present.push_back(e.path().filename().string());
    std::sort(present.begin(), present.end());
    std::string list;
    for (const std::string& p : present) list += (list.empty() ? "" : ", ") + p;
    return "no RDMA device " + device + " under " + dir.string() +
           " (present: " + (list.empty() ? "none" : list) + ")";
}

}  // namespace

Status check_config_on_host(const AgentConfig& cfg) {
    std::vector<std::string> problems;
    const auto address = [&](const std::string& field, const std::string& host) {
        if (const std::string p = bind_problem(host); !p.empty())
            problems.push_back(field + ": cannot bind " + host + " on this host: " + p);
    };
    address("http.listen", cfg.http.listen_host);
    if (cfg.responder.enabled) address("responder.listen", cfg.responder.listen);
    const auto device = [&](const std::string& field, const std::string& name) {
        if (name.empty()) return;
        if (const std::string p = device_problem(cfg.sysfs_root, name); !p.empty())
            problems.push_back(field + ": " + p);
    };
    device("device", cfg.device);
    device("responder.device", cfg.responder.device);
    if (problems.empty()) return ok_status();
    std::string detail;
    for (const std::string& p : problems)  // one line each, as parse_agent_config's
        detail += (detail.empty() ? "" : "\n  ") + p;
    return Error{"config", cfg.source, 0, detail};
}

}  // namespace rh::agent
