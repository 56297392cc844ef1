#include "scenario/compute_locality/pg.h"

#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include <fmt/format.h>

#include "core/socket.h"
#include "scenario/kit/cpu_placement.h"
#include "scenario/kit/poll.h"
#include "stand/server_node.h"
#include "stand/temp_folder.h"
#include "util/redact.h"
#include "workload/products.h"

namespace memstand {
namespace {

constexpr int kTimeoutMs = 20000;
constexpr int64_t kPgPollNs = 50'000'000;  // between checks of a starting or finishing program
constexpr char kUser[] = "memstand";

constexpr char kBinDirVariable[] = "MEMSTAND_PG_BINDIR";

// PostgreSQL's server programs: the folder MEMSTAND_PG_BINDIR names, else Debian's
// /usr/lib/postgresql/<major>/bin (the highest major), else initdb's folder on PATH.
std::string BinDir() {
  std::error_code ec;
  if (const char* env = getenv(kBinDirVariable); env != nullptr && *env != '\0') {
    return std::filesystem::exists(std::filesystem::path(env) / "initdb", ec) ? std::string(env) : "";
  }
  int best = -1;
  std::string dir;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const int major = std::atoi(e.path().filename().c_str());
    if (major > best && std::filesystem::exists(e.path() / "bin" / "initdb", ec)) {
      best = major;
      dir = (e.path() / "bin").string();
    }
  }
  if (!dir.empty()) return dir;
  auto initdb = FindExecutable("initdb");
  return initdb.ok() ? std::filesystem::path(*initdb).parent_path().string() : "";
}

// argv run as `user` (setpriv: no fork, so the pid is the program's own); as is when
// empty. The change of user clears the death signal Process set, so setpriv sets it again:
// the server dies with memstand even when memstand is killed.
std::vector<std::string> As(const std::string& user, std::vector<std::string> argv) {
  if (user.empty()) return argv;
  std::vector<std::string> out = {"setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups",
                                  "--pdeathsig", "KILL", "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

Status RunToEnd(const std::vector<std::string>& argv, const std::string& log) {
  SpawnOptions o;
  o.argv = argv;
  o.log_path = log;
  o.cpus = ScenarioServerCpus();
  auto p = Process::Spawn(o);
  if (!p.ok()) return p.status();
  PollUntil(DeadlineInMs(60000), kPgPollNs, [&]() -> Result<bool> { return !(*p)->Alive(); });
  if ((*p)->Alive()) return Status::Timeout(argv[0] + " did not finish within 60 s");
  const auto st = (*p)->wait_status();
  if (!st || !WIFEXITED(*st) || WEXITSTATUS(*st) != 0) {
    return Status::Failed(fmt::format("{} {}: {}", argv[0], (*p)->DescribeExit(), FileTail(log, 5)));
  }
  return Status::OK();
}

// OK if user `pw` may pass through every folder above `dir` (initdb and postgres run
// as that user; a private $TMPDIR stops them with a message buried under initdb's
// chatter). Checks the mode bits only: no ACLs.
Status CheckReachable(const std::string& dir, const passwd& pw) {
  for (std::filesystem::path p = std::filesystem::path(dir).parent_path(); !p.empty();
       p = p.parent_path()) {
    struct stat st {};
    if (stat(p.c_str(), &st) != 0) break;
    mode_t bit = st.st_uid == pw.pw_uid ? S_IXUSR : st.st_gid == pw.pw_gid ? S_IXGRP : S_IXOTH;
    if ((st.st_mode & bit) == 0) {
      return Status::Failed(fmt::format(
          "the temp folder {} (TMPDIR) cannot be reached by user {}, who runs initdb and postgres: "
          "{} has mode {:04o}; set TMPDIR to a folder {} can pass through, e.g. /tmp",
          dir, pw.pw_name, p.string(), st.st_mode & 07777, pw.pw_name));
    }
    if (p == p.root_path()) break;
  }
  return Status::OK();
}

std::string CopyLine(const Product& p) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", p.id, p.sku, p.title, p.category, p.price_cents, p.views);
}

// What a path's reply holds: its objects and the top ids (sorted here when the client
// computes the top). `views_at` is the column of views.
Result<PathCall> CallOf(const PgResult& r, size_t views_at, size_t n, bool client_sorts) {
  std::vector<ViewsRow> rows;
  rows.reserve(r.rows.size());
  for (const auto& row : r.rows) {
    if (row.size() <= views_at) return Status::Protocol("a row of " + std::to_string(row.size()) + " columns");
    rows.push_back({static_cast<uint32_t>(std::strtoul(row[0].c_str(), nullptr, 10)),
                    std::strtoll(row[views_at].c_str(), nullptr, 10)});
  }
  PathCall out;
  out.objects = static_cast<int64_t>(rows.size());
  if (client_sorts) {
    out.ids = TopIds(std::move(rows), n);
  } else {
    for (const ViewsRow& v : rows) out.ids.push_back(v.id);
  }
  return out;
}

// The path's request through libpq, with the kernel's bytes of libpq's socket over it.
Result<ReferenceCall> ThroughLibpq(LibpqSession* s, const std::string& sql, size_t views_at, size_t n,
                                   bool client_sorts) {
  auto k0 = s->KernelBytes();
  if (!k0.ok()) return k0.status();
  auto r = s->Exec(sql);
  if (!r.ok()) return r.status();
  auto k1 = s->KernelBytes();
  if (!k1.ok()) return k1.status();
  auto call = CallOf(*r, views_at, n, client_sorts);
  if (!call.ok()) return call.status();
  return ReferenceCall{std::move(*call), {k1->received - k0->received, k1->acked - k0->acked}};
}

}  // namespace

std::string PostgresMissing() {
  const std::string dir = BinDir();
  std::error_code ec;
  if (!dir.empty() && std::filesystem::exists(dir + "/postgres", ec)) return "";
  const char* env = getenv(kBinDirVariable);
  if (env != nullptr && *env != '\0') {
    return fmt::format("postgres is not in {}={} (it needs initdb and postgres)", kBinDirVariable,
                       Abbreviate(env, 200));
  }
  return "postgres is not installed (apt-get install postgresql)";
}

Result<std::unique_ptr<PgCluster>> PgCluster::Start(const std::atomic<bool>* cancel) {
  std::unique_ptr<PgCluster> c(new PgCluster());
  c->bin_dir_ = BinDir();
  if (!PostgresMissing().empty()) return Status::NotFound(PostgresMissing());
  Status s = c->Init(cancel);
  if (!s.ok()) return s;
  return c;
}

Status PgCluster::Init(const std::atomic<bool>* cancel) {
  if (geteuid() == 0) {
    if (getpwnam("postgres") == nullptr) {
      return Status::Failed("memstand runs as root, initdb refuses root, and there is no user 'postgres' to run "
                            "it as (apt-get install postgresql creates it)");
    }
    run_as_ = "postgres";
  }
  // $TMPDIR/memstand-pg-XXXXXX, ours and marked (stand/temp_folder.h), so the next
  // start removes it after a SIGKILL; initdb's data goes into cluster/, the user's.
  auto dir = MakeTempFolder("pg");
  if (!dir.ok()) return dir.status();
  dir_ = *dir;
  const std::string home = dir_ + "/cluster";
  if (mkdir(home.c_str(), 0700) != 0) return Status::IoError(ErrnoMessage("mkdir " + home, errno));
  if (!run_as_.empty()) {
    const passwd* pw = getpwnam(run_as_.c_str());
    if (Status s = CheckReachable(dir_, *pw); !s.ok()) return s;
    if (chmod(dir_.c_str(), 0711) != 0 || chown(home.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      return Status::IoError(ErrnoMessage("cannot hand " + home + " to user " + run_as_, errno));
    }
  }
  const std::string data = home + "/data";
  Status s = RunToEnd(As(run_as_, {bin_dir_ + "/initdb", "-D", data, "-U", kUser, "--auth=trust", "-E", "UTF8",
                                   "--no-sync", "--locale=C"}),
                      dir_ + "/initdb.log");
  if (!s.ok()) return s;
  auto port = PickFreePort();
  if (!port.ok()) return port.status();
  port_ = *port;
  argv_ = As(run_as_, {bin_dir_ + "/postgres", "-D", data, "-p", std::to_string(port_), "-c",
                       "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"});
  SpawnOptions o;
  o.argv = argv_;
  o.log_path = dir_ + "/postgres.log";
  o.cpus = ScenarioServerCpus();
  auto p = Process::Spawn(o);
  if (!p.ok()) return p.status();
  postmaster_ = std::move(*p);
  NoteServerCpus("postgres", postmaster_->pid());
  const PollResult poll = PollUntil(DeadlineInMs(20000), kPgPollNs, [&]() -> Result<bool> {
    if (!postmaster_->Alive()) return Status::Failed("postgres " + postmaster_->DescribeExit() + ": " + LogTail(5));
    auto admin = LibpqSession::Connect("127.0.0.1", port_, kUser, "postgres", kTimeoutMs / 1000);
    if (!admin.ok()) return false;
    admin_ = std::move(*admin);
    return true;
  }, cancel);
  if (poll.cancelled) return Status::Failed("interrupted");
  if (!poll.failure.ok()) return poll.failure;
  if (!poll.met) return Status::Timeout("postgres did not accept connections within 20 s: " + LogTail(5));
  auto v = admin_->Exec("SHOW server_version");
  if (v.ok() && !v->rows.empty()) version_ = v->rows[0][0];
  auto client = PgClient::Connect("127.0.0.1", port_, kUser, "postgres", kTimeoutMs);
  if (!client.ok()) return client.status();
  client_ = std::move(*client);
  return Status::OK();
}

PgCluster::~PgCluster() { Stop(); }

void PgCluster::Stop() {
  client_.reset();
  admin_.reset();
  if (postmaster_ != nullptr) {
    postmaster_->Terminate();
    postmaster_.reset();
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

Status PgCluster::Load(uint64_t seed, uint32_t count) {
  for (const char* sql : {"CREATE TABLE products (id integer PRIMARY KEY, sku text, title text, category text, "
                          "price_cents bigint, views bigint)"}) {
    auto r = admin_->Exec(sql);
    if (!r.ok()) return r.status();
  }
  std::string data;
  for (uint32_t id = 1; id <= count; ++id) data += CopyLine(MakeProduct(seed, id));
  auto copied = admin_->CopyIn("COPY products FROM STDIN", data);
  if (!copied.ok()) return copied.status().WithContext("COPY");
  for (const char* sql : {"CREATE INDEX products_by_views ON products (category, views DESC, id)", "ANALYZE products"}) {
    auto r = admin_->Exec(sql);
    if (!r.ok()) return r.status();
  }
  auto n = admin_->Exec("SELECT count(*) FROM products");
  if (!n.ok()) return n.status();
  if (n->rows.empty() || n->rows[0][0] != std::to_string(count)) {
    return Status::Failed(fmt::format("postgresql holds {} rows after the load, not {}",
                                      n->rows.empty() ? "?" : n->rows[0][0], count));
  }
  return Status::OK();
}

std::vector<LocalityPath> PgCluster::Paths(const std::string& category, int n) {
  PgClient* c = client_.get();
  LibpqSession* lib = admin_.get();
  const size_t top = static_cast<size_t>(n);
  const std::string where = "FROM products WHERE category = '" + category + "'";
  const std::string order = fmt::format(" ORDER BY views DESC, id LIMIT {}", n);
  const std::string naive = "SELECT * " + where, local = "SELECT * " + where + order;
  const std::string naive_short = "SELECT id, title, views " + where, local_short = naive_short + order;
  struct Spec {
    const char* name;
    std::string sql;
    const char* shape;
    size_t views_at;
    bool client_sorts;
  };
  const Spec specs[] = {{"naive", naive, "full record", 5, true},
                        {"local", local, "full record", 5, false},
                        {"naive-short", naive_short, "(id, title, views)", 2, true},
                        {"local-short", local_short, "(id, title, views)", 2, false}};
  std::vector<LocalityPath> out;
  for (const Spec& sp : specs) {
    LocalityPath p;
    p.system = "postgresql";
    p.name = sp.name;
    p.request = sp.sql;
    p.shape = sp.shape;
    p.where = sp.client_sorts ? "client (sorts every row it received)" : "server (ORDER BY ... LIMIT; no stored code)";
    p.call = [c, sql = sp.sql, at = sp.views_at, top, sorts = sp.client_sorts]() -> Result<PathCall> {
      auto r = c->Query(sql);
      if (!r.ok()) return r.status();
      return CallOf(*r, at, top, sorts);
    };
    p.app_bytes = [c]() { return c->bytes(); };
    p.kernel_bytes = [c]() { return c->KernelBytes(); };
    p.reference = [lib, sql = sp.sql, at = sp.views_at, top, sorts = sp.client_sorts]() {
      return ThroughLibpq(lib, sql, at, top, sorts);
    };
    p.reference_library = "libpq " + LibpqSession::LibraryVersion();
    out.push_back(std::move(p));
  }
  return out;
}

std::string PgCluster::Describe() const {
  return fmt::format("postgres {} on 127.0.0.1:{} (pid {}), a private cluster (initdb --auth=trust{}), "
                     "simple query protocol (set-up and a check of every path through libpq {})",
                     version_, port_, postmaster_ != nullptr ? postmaster_->pid() : 0,
                     run_as_.empty() ? "" : ", run as " + run_as_, LibpqSession::LibraryVersion());
}

std::string PgCluster::ConfigText() const {
  std::string out = "# postgresql: command line\n";
  for (const std::string& a : argv_) out += a + " ";
  return out + "\n# table: products (id integer PRIMARY KEY, sku, title, category, price_cents, views); "
               "index products_by_views (category, views DESC, id)\n";
}

std::string PgCluster::LogTail(int lines) const { return dir_.empty() ? "" : FileTail(log_path(), lines); }

}  // namespace memstand
