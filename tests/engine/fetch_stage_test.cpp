// FetchStage: per-host limits and delays, robots.txt before a host's pages, unreachable hosts
// parked, and a task dispatched twice fetched once; against real local servers.
#include "squall/engine/fetch_stage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/http/server.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// A site that records what it was asked, how many requests it held at once, and when each came.
struct Site {
  std::string robots;       // the robots.txt body ("" for a 404)
  int robots_status = 200;  // 503 makes it unreachable
  Duration page_time{};     // how long each page takes
  std::vector<std::string> paths;
  std::vector<TimePoint> page_starts;
  int busy = 0, most_busy = 0;
  int* shared_busy = nullptr;  // counted across sites too
  int* shared_most = nullptr;

  http::Handler handler() {
    return [this](http::ServerRequest& request, http::ServerResponse& response) -> Task<void> {
      std::string path(request.path());
      paths.push_back(path);
      if (path == "/robots.txt") {
        if (robots_status != 200 || robots.empty()) {
          response.set_status(robots.empty() && robots_status == 200 ? 404 : robots_status);
          co_return;
        }
        co_await response.write(robots);
        co_return;
      }
      page_starts.push_back(Loop::time());
      most_busy = std::max(most_busy, ++busy);
      if (shared_busy) *shared_most = std::max(*shared_most, ++*shared_busy);
      if (page_time > Duration{}) co_await sleep(page_time);
      --busy;
      if (shared_busy) --*shared_busy;
      response.headers().set("Content-Type", "text/html");
      co_await response.write("<p>" + path + "</p>");
    };
  }
  size_t asked(const std::string& path) const {
    return static_cast<size_t>(std::count(paths.begin(), paths.end(), path));
  }
};

Dispatch dispatch_of(const std::string& url, uint64_t token, json fetch = json::object()) {
  Dispatch d;
  d.task = CrawlTask::for_url("p", url);
  d.task.fetch = std::move(fetch);
  d.token = token;
  return d;
}

// Runs a stage with `workers` workers until `expected` tasks came out (delivered or parked).
struct StageRun {
  std::vector<std::pair<Dispatch, FetchResult>> delivered;
  std::vector<std::pair<Dispatch, UnavailableHost>> parked;
  Event done;
  size_t expected = 0;

  FetchStage::Deliver deliver() {
    return [this](Dispatch d, FetchResult r) -> Task<void> {
      delivered.emplace_back(std::move(d), std::move(r));
      check();
      co_return;
    };
  }
  FetchStage::Park park() {
    return [this](Dispatch d, const UnavailableHost& why) {
      parked.emplace_back(std::move(d), why);
      check();
    };
  }
  void check() {
    if (delivered.size() + parked.size() >= expected) done.set();
  }
  const FetchResult* result(const std::string& url) const {
    for (const auto& [d, r] : delivered)
      if (d.task.url == url) return &r;
    return nullptr;
  }
};

class FetchStageTest : public test::LoopTest {
 protected:
  // Pushes `tasks` into a stage made with `options` and `workers` workers; returns once every
  // task came out, the stage idle.
  // The fetcher's options for run_stage.
  FetcherOptions fetcher_options;

  Task<void> run_stage(FetchStageOptions options, std::vector<Dispatch> tasks, StageRun& out,
                       size_t workers = 4) {
    Fetcher fetcher(fetcher_options);
    FetchStage stage(fetcher, std::move(options), out.deliver(), out.park());
    out.expected = tasks.size();
    std::vector<TaskHandle<void>> running;
    for (size_t i = 0; i < workers; ++i) running.push_back(spawn(stage.worker()));
    for (Dispatch& d : tasks) stage.push(std::move(d));
    co_await out.done.wait(20s);
    EXPECT_TRUE(stage.idle());
    for (TaskHandle<void>& w : running) w.kill();
    for (TaskHandle<void>& w : running) co_await w.join();
  }
};

std::string origin_of(const http::HttpServer& server) {
  return "http://127.0.0.1:" + std::to_string(server.port());
}

TEST_F(FetchStageTest, AHostHasNoMoreFetchesInFlightThanPerHostAndOtherHostsGoOnMeanwhile) {
  auto body = [&]() -> Task<void> {
    int busy = 0, most = 0;
    Site a, b;
    for (Site* s : {&a, &b}) {
      s->page_time = 30ms;
      s->shared_busy = &busy;
      s->shared_most = &most;
    }
    http::HttpServer sa(a.handler()), sb(b.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    sb.listen(Address::parse("127.0.0.1:0"));
    std::vector<Dispatch> tasks;
    for (int i = 0; i < 5; ++i) {
      tasks.push_back(dispatch_of(origin_of(sa) + "/" + std::to_string(i), 1 + i));
      tasks.push_back(dispatch_of(origin_of(sb) + "/" + std::to_string(i), 100 + i));
    }
    StageRun run;
    FetchStageOptions options{.per_host = 1};
    co_await run_stage(options, std::move(tasks), run);
    EXPECT_EQ(run.delivered.size(), 10u);
    EXPECT_EQ(a.most_busy, 1);
    EXPECT_EQ(b.most_busy, 1);
    EXPECT_EQ(most, 2) << "the two hosts are fetched from at the same time";
    for (const auto& [d, r] : run.delivered) EXPECT_EQ(r.status_code, 200) << d.task.url;
    co_await sa.stop(1s);
    co_await sb.stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, WithoutPerHostAHostGetsAsManyFetchesAsThereAreWorkers) {
  auto body = [&]() -> Task<void> {
    Site a;
    a.page_time = 30ms;
    http::HttpServer sa(a.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    std::vector<Dispatch> tasks;
    for (int i = 0; i < 6; ++i)
      tasks.push_back(dispatch_of(origin_of(sa) + "/" + std::to_string(i), 1 + i));
    StageRun run;
    co_await run_stage(FetchStageOptions(), std::move(tasks), run, 3);
    EXPECT_EQ(run.delivered.size(), 6u);
    EXPECT_EQ(a.most_busy, 3);
    co_await sa.stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, TheStartsOfTwoFetchesFromOneHostAreAtLeastTheDelayApart) {
  auto body = [&]() -> Task<void> {
    Site a;
    http::HttpServer sa(a.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    std::vector<Dispatch> tasks;
    for (int i = 0; i < 4; ++i)
      tasks.push_back(dispatch_of(origin_of(sa) + "/" + std::to_string(i), 1 + i));
    StageRun run;
    FetchStageOptions options{.per_host = 4, .delay = 0.05};
    // When each fetch starts, as the fetcher sees it. The stage decides a start a little earlier
    // (by as much as the machine's load delays the request's making), so two starts may come
    // closer than the delay; but the n-th decision is at least n delays after the stage began,
    // and every start comes after its decision: an exact bound, whatever the load.
    std::vector<TimePoint> starts;
    fetcher_options.prepare = [&starts](const CrawlTask*, http::HttpRequest&) {
      starts.push_back(Loop::time());
    };
    TimePoint began = Loop::time();
    co_await run_stage(options, std::move(tasks), run);
    EXPECT_EQ(run.delivered.size(), 4u);
    EXPECT_EQ(a.page_starts.size(), 4u);
    EXPECT_EQ(starts.size(), 4u);
    for (size_t i = 1; i < starts.size(); ++i)
      EXPECT_GE(starts[i] - began, static_cast<int>(i) * 50ms) << i;
    co_await sa.stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, RobotsTxtIsFetchedOnceBeforeTheHostsPagesAndADisallowedPageIsA403) {
  auto body = [&]() -> Task<void> {
    Site a;
    a.robots = "User-agent: *\nDisallow: /private\n";
    http::HttpServer sa(a.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    std::string o = origin_of(sa);
    StageRun run;
    FetchStageOptions options{.obey_robots = true};
    std::vector<Dispatch> tasks;
    tasks.push_back(dispatch_of(o + "/a", 1));
    tasks.push_back(dispatch_of(o + "/b", 2));
    tasks.push_back(dispatch_of(o + "/private/x", 3));
    co_await run_stage(options, std::move(tasks), run);
    EXPECT_EQ(a.asked("/robots.txt"), 1u);
    EXPECT_EQ(a.paths.empty() ? "" : a.paths.front(), "/robots.txt");
    EXPECT_EQ(a.asked("/private/x"), 0u);
    const FetchResult* refused = run.result(o + "/private/x");
    EXPECT_TRUE(refused && refused->status_code == 403);
    if (refused) {
      EXPECT_NE(refused->error.find("disallowed by robots.txt"), std::string::npos)
          << refused->error;
    }
    const FetchResult* page = run.result(o + "/a");
    EXPECT_TRUE(page && page->status_code == 200);
    co_await sa.stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, OnlyTheTasksThatAskHaveTheirHostsRobotsTxtRead) {
  auto body = [&]() -> Task<void> {
    Site a, b;
    a.robots = b.robots = "User-agent: *\nDisallow: /\n";
    http::HttpServer sa(a.handler()), sb(b.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    sb.listen(Address::parse("127.0.0.1:0"));
    StageRun run;
    std::vector<Dispatch> tasks;
    tasks.push_back(dispatch_of(origin_of(sa) + "/x", 1, {{"robots_txt", true}}));
    tasks.push_back(dispatch_of(origin_of(sb) + "/x", 2));
    co_await run_stage(FetchStageOptions(), std::move(tasks), run);
    EXPECT_EQ(a.asked("/robots.txt"), 1u);
    EXPECT_EQ(a.asked("/x"), 0u);
    EXPECT_EQ(b.asked("/robots.txt"), 0u);
    EXPECT_EQ(b.asked("/x"), 1u);
    co_await sa.stop(1s);
    co_await sb.stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, AnUnreachableRobotsTxtIsTriedAgainThenTheHostsTasksAreParked) {
  auto body = [&]() -> Task<void> {
    Site a, b;
    a.robots_status = 503;
    http::HttpServer sa(a.handler()), sb(b.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    sb.listen(Address::parse("127.0.0.1:0"));
    std::string o = origin_of(sa);
    Fetcher fetcher;
    StageRun run;
    run.expected = 4;
    FetchStage stage(fetcher, {.obey_robots = true, .robots_retries = 1, .robots_backoff = 0.01},
                     run.deliver(), run.park());
    std::vector<TaskHandle<void>> workers;
    for (int i = 0; i < 2; ++i) workers.push_back(spawn(stage.worker()));
    stage.push(dispatch_of(o + "/a", 1));
    stage.push(dispatch_of(o + "/b", 2));
    stage.push(dispatch_of(origin_of(sb) + "/c", 3));
    while (run.parked.size() < 2) co_await sleep(5ms);
    // A later task of the host is parked at once.
    stage.push(dispatch_of(o + "/d", 4));
    co_await run.done.wait(10s);
    EXPECT_EQ(a.asked("/robots.txt"), 2u);
    EXPECT_EQ(a.paths.size(), 2u) << "no page of an unavailable host is fetched";
    EXPECT_EQ(run.parked.size(), 3u);
    for (const auto& [d, why] : run.parked) {
      EXPECT_TRUE(d.task.url.starts_with(o)) << d.task.url;
      EXPECT_EQ(why.kind, "HTTP 503");
      EXPECT_NE(why.message.find("robots.txt: HTTP 503"), std::string::npos) << why.message;
      EXPECT_NE(why.message.find("(gave up after 2 tries)"), std::string::npos) << why.message;
    }
    EXPECT_EQ(stage.unavailable().size(), 1u);
    for (const UnavailableHost& u : stage.unavailable())
      EXPECT_EQ(u.host, "127.0.0.1:" + std::to_string(sa.port()));
    EXPECT_EQ(stage.robots_retried(), 1u);
    EXPECT_EQ(run.delivered.size(), 1u) << "the other host is fetched";
    EXPECT_TRUE(stage.idle());
    for (TaskHandle<void>& w : workers) w.kill();
    for (TaskHandle<void>& w : workers) co_await w.join();
    co_await sa.stop(1s);
    co_await sb.stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, ARefusedConnectionForRobotsTxtMakesTheHostUnavailableWithItsReason) {
  auto body = [&]() -> Task<void> {
    uint16_t port = 0;
    Site site;
    {
      http::HttpServer gone(site.handler());
      gone.listen(Address::parse("127.0.0.1:0"));
      port = gone.port();
    }
    std::string o = "http://127.0.0.1:" + std::to_string(port);
    StageRun run;
    FetchStageOptions options{.obey_robots = true, .robots_retries = 0};
    std::vector<Dispatch> tasks;
    tasks.push_back(dispatch_of(o + "/", 1));
    co_await run_stage(options, std::move(tasks), run);
    EXPECT_EQ(run.parked.size(), 1u);
    for (const auto& [d, why] : run.parked) {
      EXPECT_EQ(why.kind, "connect");
      EXPECT_NE(why.message.find("robots.txt: "), std::string::npos) << why.message;
      EXPECT_EQ(why.message.find("gave up"), std::string::npos) << why.message;
    }
  };
  run(body());
}

TEST_F(FetchStageTest, HostsGivenUpOnAreAllCountedButOnlyTheFirstAreListed) {
  auto body = [&]() -> Task<void> {
    // Three hosts that refuse connections (servers that listened once and closed).
    std::vector<std::string> origins;
    Site site;
    for (int i = 0; i < 3; ++i) {
      http::HttpServer gone(site.handler());
      gone.listen(Address::parse("127.0.0.1:0"));
      origins.push_back(origin_of(gone));
    }
    Fetcher fetcher;
    StageRun run;
    run.expected = 3;
    FetchStage stage(fetcher, {.obey_robots = true, .robots_retries = 0, .unavailable_listed = 2},
                     run.deliver(), run.park());
    std::vector<TaskHandle<void>> workers;
    for (int i = 0; i < 2; ++i) workers.push_back(spawn(stage.worker()));
    for (size_t i = 0; i < origins.size(); ++i) stage.push(dispatch_of(origins[i] + "/", i + 1));
    co_await run.done.wait(10s);
    EXPECT_EQ(stage.unavailable_count(), 3u);
    EXPECT_EQ(stage.unavailable().size(), 2u);
    std::vector<std::string> listed;
    for (const UnavailableHost& u : stage.unavailable()) listed.push_back("http://" + u.host);
    std::string unlisted;
    for (const std::string& o : origins)
      if (std::find(listed.begin(), listed.end(), o) == listed.end()) unlisted = o;
    EXPECT_FALSE(unlisted.empty());
    // A later task of the host that is only counted is parked all the same, without its reason.
    run.expected = 4;
    run.done.clear();
    stage.push(dispatch_of(unlisted + "/later", 4));
    co_await run.done.wait(10s);
    EXPECT_EQ(run.parked.size(), 4u);
    if (run.parked.size() == 4u) {
      EXPECT_EQ(run.parked.back().first.task.url, unlisted + "/later");
      EXPECT_NE(run.parked.back().second.message.find("robots.txt could not be fetched"),
                std::string::npos);
    }
    EXPECT_EQ(stage.unavailable_count(), 3u);
    EXPECT_TRUE(stage.idle());
    for (TaskHandle<void>& w : workers) w.kill();
    for (TaskHandle<void>& w : workers) co_await w.join();
  };
  run(body());
}

TEST_F(FetchStageTest, ATaskDispatchedAgainWhileHeldIsFetchedOnceWithTheNewerToken) {
  auto body = [&]() -> Task<void> {
    Site a;
    a.page_time = 30ms;
    http::HttpServer sa(a.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    std::string o = origin_of(sa);
    Fetcher fetcher;
    StageRun run;
    run.expected = 2;
    FetchStage stage(fetcher, {.per_host = 1}, run.deliver(), run.park());
    TaskHandle<void> worker = spawn(stage.worker());
    stage.push(dispatch_of(o + "/x", 1));
    stage.push(dispatch_of(o + "/y", 2));
    stage.push(dispatch_of(o + "/y", 3));  // its processing timeout passed while it waited
    EXPECT_EQ(stage.queued(), 2u);
    co_await run.done.wait(10s);
    co_await sleep(50ms);
    EXPECT_EQ(run.delivered.size(), 2u);
    for (const auto& [d, r] : run.delivered)
      if (d.task.url == o + "/y") {
        EXPECT_EQ(d.token, 3u);
      }
    EXPECT_EQ(a.asked("/y"), 1u);
    worker.kill();
    co_await worker.join();
    co_await sa.stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, HostsForgottenWhileIdleHaveTheirRobotsTxtReadAgainWhenMetAgain) {
  auto body = [&]() -> Task<void> {
    constexpr size_t kHosts = 6;
    std::vector<std::unique_ptr<Site>> sites;
    std::vector<std::unique_ptr<http::HttpServer>> servers;
    for (size_t i = 0; i < kHosts; ++i) {
      sites.push_back(std::make_unique<Site>());
      sites.back()->robots = "User-agent: *\nDisallow: /private\n";
      servers.push_back(std::make_unique<http::HttpServer>(sites.back()->handler()));
      servers.back()->listen(Address::parse("127.0.0.1:0"));
    }
    Fetcher fetcher;
    StageRun run;
    FetchStage stage(fetcher, {.obey_robots = true, .max_hosts = 2}, run.deliver(), run.park());
    TaskHandle<void> worker = spawn(stage.worker());
    uint64_t token = 0;
    // Two rounds, one host at a time: the hosts of the first are long idle in the second.
    for (const char* path : {"/a", "/private/b"})
      for (const auto& server : servers) {
        run.expected = run.delivered.size() + 1;
        run.done.clear();
        stage.push(dispatch_of(origin_of(*server) + path, ++token));
        co_await run.done.wait(10s);
      }
    EXPECT_EQ(run.delivered.size(), 2 * kHosts);
    size_t robots_asked = 0;
    for (const auto& site : sites) {
      robots_asked += site->asked("/robots.txt");
      EXPECT_EQ(site->paths.empty() ? "" : site->paths.front(), "/robots.txt");
      EXPECT_EQ(site->asked("/private/b"), 0u) << "robots.txt read again decides";
    }
    EXPECT_GT(robots_asked, kHosts) << "no host was forgotten";
    EXPECT_LE(robots_asked, 2 * kHosts);
    for (const auto& [d, r] : run.delivered)
      if (d.task.url.ends_with("/private/b")) {
        EXPECT_EQ(r.status_code, 403) << d.task.url;
      }
    worker.kill();
    co_await worker.join();
    for (const auto& server : servers) co_await server->stop(1s);
  };
  run(body());
}

TEST_F(FetchStageTest, ItHoldsNoMoreThanItsCapacityAndDataUrlsNeedNoHost) {
  auto body = [&]() -> Task<void> {
    Fetcher fetcher;
    StageRun run;
    run.expected = 2;
    FetchStage stage(fetcher, {.capacity = 2}, run.deliver(), run.park());
    size_t rooms = 0;
    stage.on_room = [&] { ++rooms; };
    EXPECT_EQ(stage.room(), 2u);
    stage.push(dispatch_of("data:,hello", 1));
    stage.push(dispatch_of("data:text/html,<p>x</p>", 2));
    EXPECT_EQ(stage.room(), 0u);
    TaskHandle<void> worker = spawn(stage.worker());
    co_await run.done.wait(10s);
    EXPECT_EQ(stage.room(), 2u);
    EXPECT_EQ(rooms, 2u);
    const FetchResult* hello = run.result("data:,hello");
    EXPECT_TRUE(hello && hello->status_code == 200 && hello->content == "hello");
    worker.kill();
    co_await worker.join();
  };
  run(body());
}

// A lone fetcher whose workers keep every slot of a host busy: each fetch's release reaches
// HostLeases before the acquire its worker makes next, so no acquire finds a slot still held by
// a fetch that ended. A refusal would keep the host off for the hour of busy_retry and lease_ttl,
// and the crawl would not end.
TEST_F(FetchStageTest, ALoneFetcherFillingAHostsSharedSlotsIsNeverRefusedByItsOwnReleases) {
  auto body = [&]() -> Task<void> {
    test::RedisServer redis;
    RedisClient client(redis.url());
    HostLeases leases(client, {.per_host = 2, .lease_ttl = 1h, .busy_retry = 1h});
    Site a;
    a.page_time = 5ms;  // so that the two fetches overlap, each holding its slot
    http::HttpServer sa(a.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    std::vector<Dispatch> tasks;
    for (int i = 0; i < 30; ++i)
      tasks.push_back(dispatch_of(origin_of(sa) + "/" + std::to_string(i), 1 + i));
    StageRun run;
    FetchStageOptions options{.per_host = 2, .host_leases = &leases};
    co_await run_stage(options, std::move(tasks), run, 2);
    EXPECT_EQ(run.delivered.size(), 30u);
    co_await sa.stop(1s);
    client.close();
  };
  run(body());
}

// A fetch that lasts longer than its lease's life keeps the host all along: the stage renews
// the lease while the fetch runs, so another fetcher is refused the host until it ends, and
// granted it after.
TEST_F(FetchStageTest, AFetchLongerThanItsLeasesLifeKeepsTheHostUntilItEnds) {
  auto body = [&]() -> Task<void> {
    test::RedisServer redis;
    RedisClient client(redis.url());
    // Renewed every quarter of its second, the lease outlives a stall of the loop of up to
    // about half a second (a loaded machine); without renewal it expires a third into the fetch.
    HostLeases leases(client, {.per_host = 1, .lease_ttl = 1s, .busy_retry = 10ms});
    HostLeases other(client, {.per_host = 1, .lease_ttl = 1s, .busy_retry = 10ms});
    Site a;
    a.page_time = 3s;
    http::HttpServer sa(a.handler());
    sa.listen(Address::parse("127.0.0.1:0"));
    std::string host = "127.0.0.1:" + std::to_string(sa.port());
    StageRun run;
    std::vector<Dispatch> tasks;
    tasks.push_back(dispatch_of(origin_of(sa) + "/slow", 1));
    TaskHandle<void> stage =
        spawn(run_stage({.per_host = 1, .host_leases = &leases}, std::move(tasks), run, 1));
    while (a.page_starts.empty()) co_await sleep(5ms);
    int granted_during = 0, tries = 0;
    while (a.busy > 0) {
      LeaseGrant grant = co_await other.acquire(host);
      ++tries;
      if (grant.lease) {
        ++granted_during;
        co_await other.release(std::move(*grant.lease));
      }
      co_await sleep(50ms);
    }
    EXPECT_GT(tries, 10);
    EXPECT_EQ(granted_during, 0) << "the lease expired during its fetch";
    co_await stage.join();
    EXPECT_EQ(run.delivered.size(), 1u);
    LeaseGrant after = co_await other.acquire(host);
    EXPECT_TRUE(after.lease.has_value());
    co_await sa.stop(1s);
    client.close();
  };
  run(body());
}

// Three stages, each a fetcher of its own (its loop, thread and Redis client), share one host
// through HostLeases and SharedRobots: nginx's own log, where each line says when the request
// ended ($msec) and how long it took ($request_time), shows the host's requests one at a time,
// each starting at least the delay after the previous one started, and one robots.txt request.
TEST_F(FetchStageTest, StagesSharingPolitenessThroughRedisKeepPerHostAndTheDelayAtTheServer) {
  test::RedisServer redis;
  test::TempDir site;
  site.write("robots.txt", "User-agent: *\nDisallow: /private/\n");
  for (int i = 0; i < 15; ++i) site.write(std::to_string(i) + ".html", "<p>page</p>");
  uint16_t port = test::free_port();
  std::string log_path = (site.path() / "timing.log").string();
  test::Process nginx = test::start_nginx(site, "access_log " + log_path + " timing;", port, "",
                                          "log_format timing '$msec $request_time $request_uri';");
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  std::mutex lock;
  std::vector<std::string> failures;
  std::vector<size_t> delivered(3, 0);
  std::vector<std::thread> fetchers;
  for (int f = 0; f < 3; ++f) {
    fetchers.emplace_back([&, f] {
      try {
        Loop loop;
        RedisClient client(redis.url(), loop);
        HostLeases leases(client, {.per_host = 1, .delay = 0.2});
        SharedRobots robots(client);
        std::vector<Dispatch> tasks;
        for (int i = 0; i < 5; ++i)
          tasks.push_back(
              dispatch_of(origin + "/" + std::to_string(f * 5 + i) + ".html", uint64_t(i + 1)));
        StageRun out;
        run_sync(run_stage({.per_host = 1,
                            .delay = 0.2,
                            .obey_robots = true,
                            .host_leases = &leases,
                            .shared_robots = &robots},
                           std::move(tasks), out, 2),
                 60s);
        for (const auto& [d, r] : out.delivered) delivered[f] += r.status_code == 200;
        client.close();
      } catch (const std::exception& e) {
        std::lock_guard hold(lock);
        failures.emplace_back(e.what());
      }
    });
  }
  for (std::thread& t : fetchers) t.join();
  for (const std::string& f : failures) ADD_FAILURE() << "a fetcher failed: " << f;
  EXPECT_EQ(delivered, std::vector<size_t>({5, 5, 5}));
  nginx.stop();  // every line written: nginx logs a request once its response has gone

  struct Request {
    int64_t start_ms, end_ms;
    std::string uri;
  };
  std::vector<Request> requests;
  std::istringstream log(test::read_file(log_path));
  std::string line;
  while (std::getline(log, line)) {
    std::istringstream fields(line);
    double end = 0, took = 0;
    std::string uri;
    fields >> end >> took >> uri;
    auto end_ms = static_cast<int64_t>(end * 1000 + 0.5);
    requests.push_back({end_ms - static_cast<int64_t>(took * 1000 + 0.5), end_ms, uri});
  }
  std::sort(requests.begin(), requests.end(),
            [](const Request& a, const Request& b) { return a.start_ms < b.start_ms; });
  ASSERT_EQ(requests.size(), 16u) << "15 pages and one robots.txt";
  EXPECT_EQ(std::count_if(requests.begin(), requests.end(),
                          [](const Request& r) { return r.uri == "/robots.txt"; }),
            1);
  for (size_t i = 1; i < requests.size(); ++i) {
    const Request& before = requests[i - 1];
    const Request& next = requests[i];
    EXPECT_GE(next.start_ms, before.end_ms)
        << next.uri << " started while " << before.uri << " was in flight";
    // nginx's times are whole ms: a gap of 200 ms may read as 199.
    EXPECT_GE(next.start_ms - before.start_ms, 199)
        << next.uri << " started too soon after " << before.uri;
  }
}

}  // namespace
}  // namespace squall
