// The frame key fuzz_oob_frame checks MAC trailers under, and fuzz_make_seeds seals its
// protected seeds with: a fixed key, so a seed's trailer verifies and the fuzzer mutates from
// frames that reach the decoders past the MAC check.
#pragma once

#include "probes/wire/frame_mac.h"

namespace rh::fuzz {

inline constexpr tcp::FrameKey kFrameKey = {0x72, 0x68, 0x66, 0x75, 0x7a, 0x7a};

}  // namespace rh::fuzz
