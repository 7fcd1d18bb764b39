// Live `ethtool -S`: SIOCETHTOOL on a datagram socket, through read_ethtool_stats().
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "collectors/sources/ethtool_stats.h"

namespace rh {

namespace {

class IoctlSource final : public EthtoolStatsSource {
  public:
    IoctlSource() = default;
    IoctlSource(const IoctlSource&) = delete;
    IoctlSource& operator=(const IoctlSource&) = delete;
    ~IoctlSource() override {
        if (fd_ >= 0) close(fd_);
    }

    Result<std::vector<Counter>> read(const std::string& ifname) override {
        if (ifname.empty() || ifname.size() >= IFNAMSIZ)
            return Error{"SIOCETHTOOL", ifname, EINVAL, "bad interface name"};
        if (fd_ < 0) {
            // Any socket reaches dev_ioctl; AF_NETLINK works where IPv4 is compiled out.
            fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd_ < 0) fd_ = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_GENERIC);
            if (fd_ < 0) return errno_error("socket", ifname, "for SIOCETHTOOL");
        }
        const int fd = fd_;
        return read_ethtool_stats(
            ifname,
            [fd, &ifname](std::span<std::uint8_t> cmd) {
                ifreq ifr{};
                std::memcpy(ifr.ifr_name, ifname.c_str(), ifname.size());
                ifr.ifr_data = reinterpret_cast<char*>(cmd.data());
                return ioctl(fd, SIOCETHTOOL, &ifr) == 0 ? 0 : errno;
            },
            &names_[ifname]);
    }

  private:
    int fd_ = -1;
    /// Per interface, its statistics names as last read (the poller keeps this source for its
    /// life, so a steady-state pass makes 3 ioctls per netdev instead of 4).
    std::map<std::string, std::vector<std::uint8_t>> names_;
};

}  // namespace

std::unique_ptr<EthtoolStatsSource> make_ethtool_ioctl_source() {
    return std::make_unique<IoctlSource>();
}

}  // namespace rh
