// CrawlStore: the frontier and results survive a reopen and a SIGKILL, batch by batch.
#include "squall/crawl/store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "squall/core/error.h"
#include "support/process.h"

namespace squall {
namespace {

using test::TempDir;

PageResult ok_page(std::string final_url, int links) {
  PageResult r;
  r.final_url = std::move(final_url);
  r.status = 200;
  r.content_type = "text/html";
  r.length = 1234;
  r.fetched_at = 1796000000000;
  r.elapsed_ms = 1.5;
  r.links = links;
  return r;
}

TEST(CrawlStore, AddsEachUrlOnceAndHandsOutTheQueueInOrder) {
  TempDir dir;
  CrawlStore store = CrawlStore::open(dir.path() / "crawl.db");
  EXPECT_TRUE(store.fresh());
  int64_t a = store.add("http://h/", 0, "");
  int64_t b = store.add("http://h/b", 1, "http://h/");
  EXPECT_GT(a, 0);
  EXPECT_GT(b, a);
  EXPECT_EQ(store.add("http://h/b", 2, "http://h/x"), 0) << "already known";
  int64_t c = store.add("http://h/c", 1, "http://h/");

  auto q = store.queued(0, 10);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].url, "http://h/");
  EXPECT_EQ(q[1].url, "http://h/b");
  EXPECT_EQ(q[1].depth, 1);
  EXPECT_EQ(q[1].parent, "http://h/");
  EXPECT_EQ(store.queued(b, 10).size(), 1u);
  EXPECT_EQ(store.queued(0, 2).size(), 2u);

  store.finish(a, UrlState::Done, ok_page("http://h/", 2));
  PageResult failed;
  failed.error = "connect: connection refused";
  store.finish(c, UrlState::Failed, failed);
  store.count_attempt(b, 1);
  auto left = store.queued(0, 10);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].url, "http://h/b");
  EXPECT_EQ(left[0].attempts, 1);

  StoreCounts n = store.counts();
  EXPECT_EQ(n.queued, 1);
  EXPECT_EQ(n.done, 1);
  EXPECT_EQ(n.failed, 1);
  EXPECT_EQ(n.total(), 3);
  auto results = store.results();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].url, "http://h/");
  EXPECT_EQ(results[0].page.status, 200);
  EXPECT_EQ(results[0].page.links, 2);
  EXPECT_EQ(results[0].page.fetched_at, 1796000000000);
  EXPECT_EQ(results[1].state, UrlState::Failed);
  EXPECT_EQ(results[1].page.error, "connect: connection refused");
}

TEST(CrawlStore, AReopenedStoreResumes) {
  TempDir dir;
  auto path = dir.path() / "crawl.db";
  {
    CrawlStore store = CrawlStore::open(path);
    int64_t a = store.add("http://h/", 0, "");
    store.add("http://h/next", 1, "http://h/");
    store.finish(a, UrlState::Done, ok_page("http://h/", 1));
    store.set_meta("start", "http://h/");
  }
  CrawlStore store = CrawlStore::open(path);
  EXPECT_FALSE(store.fresh());
  EXPECT_EQ(store.meta("start"), "http://h/");
  EXPECT_EQ(store.meta("missing"), std::nullopt);
  auto q = store.queued(0, 10);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].url, "http://h/next");
  std::vector<std::string> all;
  store.for_each_url([&](std::string_view u) { all.emplace_back(u); });
  EXPECT_EQ(all.size(), 2u);
  // A result stored after the reopen comes after the earlier ones.
  store.finish(q[0].id, UrlState::Done, ok_page("http://h/next", 0));
  auto results = store.results();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1].url, "http://h/next");
}

TEST(CrawlStore, SigkillKeepsCommittedBatchesAndDropsTheOpenOne) {
  TempDir dir;
  auto path = dir.path() / "crawl.db";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    CrawlStore store = CrawlStore::open(path);
    int64_t a = store.add("http://h/committed", 0, "");
    store.finish(a, UrlState::Done, ok_page("http://h/committed", 0));
    store.commit();
    int64_t b = store.add("http://h/uncommitted", 0, "");
    store.finish(b, UrlState::Done, ok_page("http://h/uncommitted", 0));
    kill(getpid(), SIGKILL);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  CrawlStore store = CrawlStore::open(path);
  auto results = store.results();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].url, "http://h/committed");
  EXPECT_EQ(store.counts().total(), 1);
}

TEST(CrawlStore, AnUnusableFileIsAClearError) {
  TempDir dir;
  dir.write("not-a-db", std::string(4096, 'x'));
  try {
    CrawlStore::open(dir.path() / "not-a-db");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::System);
    EXPECT_NE(std::string(e.what()).find("not-a-db"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CrawlStore::open("/nonexistent-dir/crawl.db"), Error);
}

}  // namespace
}  // namespace squall
