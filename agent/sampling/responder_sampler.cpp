#include "agent/sampling/responder_sampler.h"

#include "agent/sampling/host_sampler.h"
#include "collectors/collect.h"
#include "core/recording/sample_json.h"
#include "store/from_snapshot.h"

namespace rh {

namespace {

class HostPassSource : public incast::PassSource {
  public:
    explicit HostPassSource(const std::string& root)
        : sampler_(CollectOptions{SysfsRoot(root), ""}, "") {}
    std::size_t devices() const { return sampler_.devices(); }
    nlohmann::json pass(std::vector<std::string>& notes) override {
        nlohmann::json lines = nlohmann::json::array();
        for (const Sample& s : sampler_.pass(notes)) lines.push_back(to_json_line(s));
        return lines;
    }

  private:
    HostSampler sampler_;
};

}  // namespace

incast::PassSourceFactory host_pass_source(std::string root) {
    return [root]() -> Result<std::unique_ptr<incast::PassSource>> {
        auto src = std::make_unique<HostPassSource>(root);
        if (src->devices() == 0)
            return Error{"sample", root + "/class/infiniband", ENODEV, "no RDMA device"};
        return std::unique_ptr<incast::PassSource>(std::move(src));
    };
}

InventoryReader host_inventory() {
    return [](const std::filesystem::path& sysfs_root, const std::string& device,
              const std::string& host, const SampleTime& when) {
        CollectOptions co{SysfsRoot(sysfs_root), device};
        Snapshot snap = collect_snapshot(co);
        if (!host.empty()) snap.host = host;
        InventoryFacts facts;
        for (const Sample& smp : samples_from_snapshot(snap, when, true))
            facts.samples.push_back(to_json_line(smp));
        facts.snapshot = inventory_json(snap);
        return facts;
    };
}

}  // namespace rh
