// `squall status`: reads the component registry and the streams' depth, prints tables or JSON.
#include "squall/cli/status_command.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/cli/signal_watch.h"
#include "squall/control/control_server.h"
#include "squall/core/event.h"
#include "squall/core/seconds.h"
#include "squall/core/spawn.h"
#include "squall/engine/cluster_status.h"
#include "squall/net/redis.h"

namespace squall::cli {

namespace {

// "0.4s", "12s", "3m05s", "2h07m".
std::string age_text(Duration d) {
  double s = to_seconds(d);
  char text[32];
  if (s < 10) {
    std::snprintf(text, sizeof text, "%.1fs", s);
  } else if (s < 60) {
    std::snprintf(text, sizeof text, "%.0fs", std::floor(s));
  } else if (s < 3600) {
    auto whole = static_cast<long long>(s);
    std::snprintf(text, sizeof text, "%lldm%02llds", whole / 60, whole % 60);
  } else {
    auto minutes = static_cast<long long>(s / 60);
    std::snprintf(text, sizeof text, "%lldh%02lldm", minutes / 60, minutes % 60);
  }
  return text;
}

// Rows of cells printed as columns two spaces apart; numbers (`right` columns) aligned right.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                 const std::vector<bool>& right) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      std::string pad(width[i] - row[i].size(), ' ');
      line += right[i] ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : "");
    }
    out << line << "\n";
  }
}

void print_tables(std::ostream& out, const StatusCommand& c, const std::string& peer,
                  const ClusterStatus& status) {
  out << "Redis " << peer << ", namespace \"" << c.ns << "\"\n\n";
  size_t live = status.live();
  out << "Components: " << live << " live, " << status.components.size() - live << " dead\n";
  if (status.components.empty()) {
    out << "  none has registered in this namespace (components join when they start: squall "
           "scheduler, fetcher, processor, result-worker)\n";
  } else {
    std::vector<std::vector<std::string>> rows = {
        {"ROLE", "HOST", "PID", "STATE", "HEARTBEAT", "HANDLED", "LAG", "UP"}};
    // UP: since it joined, by this machine's clock.
    double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (const auto& comp : status.components) {
      std::chrono::duration<double> up(now - comp.started);
      rows.push_back({comp.role, comp.host, std::to_string(comp.pid), comp.dead ? "dead" : "live",
                      age_text(comp.age) + " ago", std::to_string(comp.report.pages),
                      std::to_string(comp.report.lag),
                      up.count() > 0 ? age_text(std::chrono::duration_cast<Duration>(up)) : "-"});
    }
    print_table(out, rows, {false, false, true, false, true, true, true, true});
  }
  out << "\nStreams\n";
  std::vector<std::vector<std::string>> rows = {
      {"STREAM", "FROM", "TO", "LENGTH", "PENDING", "LAG", "DEAD", "CONSUMERS"}};
  for (const auto& s : status.streams) {
    rows.push_back({s.key, std::string(s.stream.from), std::string(s.stream.to),
                    std::to_string(s.depth.length), std::to_string(s.depth.pending),
                    std::to_string(s.depth.lag), std::to_string(s.depth.dead),
                    std::to_string(s.depth.consumers)});
  }
  print_table(out, rows, {false, false, false, true, true, true, true, true});
}

void print_json(std::ostream& out, const std::string& peer, const ClusterStatus& status) {
  nlohmann::ordered_json j;
  j["redis"] = peer;
  nlohmann::ordered_json cluster = cluster_status_json(status);
  for (auto it = cluster.begin(); it != cluster.end(); ++it) j[it.key()] = std::move(*it);
  out << j.dump(2) << "\n";
}

// --port: the cluster served until Ctrl-C.
int serve_status(const StatusCommand& c, std::ostream& err) {
  Loop loop;
  std::optional<ControlServer> control;
  try {
    control.emplace(ControlOptions{.port = *c.port,
                                   .bind = c.bind,
                                   .auth = c.auth,
                                   .cluster_redis = c.redis,
                                   .cluster_namespace = c.ns});
    control->start();
  } catch (const Error& e) {
    err << "squall status: " << e.what() << "\n";
    return 2;
  }
  err << "Dashboard: " << control->url() << "\n"
      << "Serving the cluster in namespace \"" << c.ns << "\" until Ctrl-C\n"
      << std::flush;
  Event leave;
  SignalWatch signals(loop, [&](int) { leave.set(); });
  run_sync([](ControlServer& server, Event& leave) -> Task<void> {
    co_await leave.wait();
    co_await server.stop();
  }(*control, leave));
  return 0;
}

}  // namespace

int run_status(const StatusCommand& c, std::ostream& out, std::ostream& err) {
  if (c.redis.empty()) {
    err << "squall status: give --redis redis://HOST:PORT/DB, the Redis the components use\n";
    return 2;
  }
  RedisOptions options;
  try {
    options = parse_redis_url(c.redis);
  } catch (const InvalidArgumentError& e) {
    err << "squall status: " << e.what()
        << " (--redis takes redis://[[user]:password@]host[:port][/db])\n";
    return 2;
  }
  try {
    cluster_prefix(c.ns);
  } catch (const InvalidArgumentError& e) {
    err << "squall status: --namespace: " << e.what() << "\n";
    return 2;
  }
  if (c.port) return serve_status(c, err);
  auto limit = from_seconds(c.timeout);
  options.connect_timeout = limit;
  options.command_timeout = limit;
  options.connect_attempts = 2;
  options.client_name = "squall-status";
  std::string peer = options.host + ":" + std::to_string(options.port);
  ClusterStatus status;
  try {
    status = run_sync([&]() -> Task<ClusterStatus> {
      RedisClient redis(options);
      ClusterStatus s = co_await read_cluster_status(redis, c.ns);
      redis.close();
      co_return s;
    }());
  } catch (const RedisError& e) {
    err << "squall status: Redis at " << peer << " refused: " << e.what()
        << " (check the password and db in --redis)\n";
    return 1;
  } catch (const std::exception& e) {
    err << "squall status: cannot read the cluster from Redis at " << peer << ": " << e.what()
        << " (is redis-server running there? check the host and port in --redis)\n";
    return 1;
  }
  if (c.json) {
    print_json(out, peer, status);
  } else {
    print_tables(out, c, peer, status);
  }
  return 0;
}

}  // namespace squall::cli
