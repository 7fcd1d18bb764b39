// Which bundle captures are one host's: the captures of a `diagnose --bundle` run grouped by
// the identity each holds (collectors/bundle/capture_identity.h), each with the reason it was
// placed there and the host's name.
#pragma once

#include <string>
#include <vector>

#include "collectors/bundle/bundle.h"

namespace rh {

/// One host's captures, in the order given, and what decided each one's place.
struct HostGroup {
    std::string name;
    CaptureIdentity identity;            ///< merged over the captures so far
    std::vector<std::size_t> captures;   ///< indexes into the run's captures
    std::vector<std::string> decisions;  ///< per capture: why it is this host
};

/// A capture directory's last path element ("t0" for "run/t0/"), the absolute path's for ".".
std::string dir_basename(const std::string& dir);

/// Groups captures into hosts by their identity (collectors/bundle/capture_identity.h): a capture
/// joins the first host whose identity agrees; a capture with no evidence in common with any
/// host joins the only host when there is just one it does not contradict; else it is a host of
/// its own. Names: the `hostname` file of the group if any, else the first directory's basename
/// (made unique: "parent/base", then "#N").
std::vector<HostGroup> group_captures(const std::vector<BundleCapture>& caps);

}  // namespace rh
