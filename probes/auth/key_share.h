// An ephemeral X25519 key share of one handshake (probes/auth/handshake.h): both ends send one,
// and the frame keys derive from the fabric key and their shared secret, so a host on the path
// that holds the fabric key but neither share's private part cannot compute them. Generated per
// connection and dropped after it (forward secrecy for the frame keys).
#pragma once

#include <memory>

#include "core/result.h"
#include "probes/auth/fabric_key.h"
#include "probes/auth/host_key.h"

namespace rh::auth {

class KeyShare {
  public:
    /// A new random X25519 key pair.
    static KeyShare generate();
    PublicKey public_key() const;
    /// The 32-byte X25519 shared secret with `peer`'s public share. Error (op "auth", detail
    /// "key share: ...") for a share OpenSSL refuses, e.g. a low-order point (all-zero secret).
    Result<KeyBytes> agree(const PublicKey& peer) const;

  private:
    std::shared_ptr<EVP_PKEY> pkey_;
};

}  // namespace rh::auth
