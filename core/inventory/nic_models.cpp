#include "core/inventory/nic_models.h"

namespace rh {

namespace {

struct Model {
    unsigned vendor, device;
    double max_port_gbps;
};

/// Physical functions only (a VF runs at its PF's rate, and is not listed: no bound).
constexpr Model kModels[] = {
    {0x15b3, 0x1013, 100},  // ConnectX-4
    {0x15b3, 0x1015, 50},   // ConnectX-4 Lx
    {0x15b3, 0x1017, 100},  // ConnectX-5
    {0x15b3, 0x1019, 100},  // ConnectX-5 Ex
    {0x15b3, 0x101b, 200},  // ConnectX-6
    {0x15b3, 0x101d, 200},  // ConnectX-6 Dx
    {0x15b3, 0x101f, 50},   // ConnectX-6 Lx
    {0x15b3, 0x1021, 400},  // ConnectX-7
    {0x15b3, 0x1023, 800},  // ConnectX-8
    {0x15b3, 0xa2d6, 200},  // BlueField-2
    {0x15b3, 0xa2dc, 400},  // BlueField-3
    {0x14e4, 0x16d6, 10},   // BCM57412 NetXtreme-E 10G
    {0x14e4, 0x16d7, 25},   // BCM57414 NetXtreme-E 10/25G
    {0x14e4, 0x16d8, 10},   // BCM57416 NetXtreme-E 10GBASE-T
    {0x14e4, 0x1750, 200},  // BCM57508 NetXtreme-E 200G
    {0x14e4, 0x1751, 100},  // BCM57504 NetXtreme-E 4x25/100G
    {0x8086, 0x1591, 100},  // E810-C backplane
    {0x8086, 0x1592, 100},  // E810-C QSFP
    {0x8086, 0x1593, 25},   // E810-C SFP
    {0x8086, 0x159b, 25},   // E810-XXV SFP
};

}  // namespace

std::optional<double> nic_model_max_port_gbps(unsigned vendor_id, unsigned device_id) {
    for (const Model& m : kModels)
        if (m.vendor == vendor_id && m.device == device_id) return m.max_port_gbps;
    return std::nullopt;
}

}  // namespace rh
