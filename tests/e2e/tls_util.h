// Test certificates for the TLS end-to-end tests (RESP, memcached, etcd), made with the
// openssl CLI in a temporary directory of the test's own.
#pragma once

#include <string>

#include "core/tls.h"

namespace memstand::e2e {

struct Certs {
  std::string dir;
  std::string ca, server_cert, server_key, client_cert, client_key, other_ca;
};

/// A CA, a server certificate for localhost and 127.0.0.1, a client certificate (both
/// signed by the CA) and an unrelated CA; EC P-256 keys, made in a fraction of a second.
/// A test failure (with openssl's log) if openssl fails.
Certs MakeCerts();

/// Client options that trust the test CA, with the client certificate if with_cert.
TlsOptions ClientTls(const Certs& c, bool with_cert);

}  // namespace memstand::e2e
