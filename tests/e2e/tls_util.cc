#include "e2e/tls_util.h"

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "npm_util.h"

namespace memstand::e2e {

Certs MakeCerts() {
  Certs c;
  c.dir = TempDir();
  const std::string d = testutil::ShellQuote(c.dir);
  const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const std::string script =
      "set -e; cd " + d + "; exec 2>openssl.log; " +
      "openssl req -x509 " + key + " -keyout ca.key -out ca.crt -days 2 -subj /CN=memstand-ca; " +
      "openssl req -x509 " + key + " -keyout other.key -out other.crt -days 2 -subj /CN=other; " +
      "openssl req " + key + " -keyout server.key -out server.csr -subj /CN=localhost; " +
      "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext; " +
      "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 "
      "-extfile server.ext -out server.crt; " +
      "openssl req " + key + " -keyout client.key -out client.csr -subj /CN=memstand-client; " +
      "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 "
      "-out client.crt";
  testutil::CommandResult r = testutil::RunShell(script);
  EXPECT_EQ(r.exit_code, 0) << testutil::ReadFile(c.dir + "/openssl.log");
  c.ca = c.dir + "/ca.crt";
  c.other_ca = c.dir + "/other.crt";
  c.server_cert = c.dir + "/server.crt";
  c.server_key = c.dir + "/server.key";
  c.client_cert = c.dir + "/client.crt";
  c.client_key = c.dir + "/client.key";
  return c;
}

TlsOptions ClientTls(const Certs& c, bool with_cert) {
  TlsOptions o;
  o.enabled = true;
  o.ca_file = c.ca;
  if (with_cert) {
    o.cert_file = c.client_cert;
    o.key_file = c.client_key;
  }
  return o;
}

}  // namespace memstand::e2e
