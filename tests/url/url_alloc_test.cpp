// Tests that parsing, resolving and normalising the URLs pages are made of costs no heap
// allocation: this executable replaces the global operator new to count calls.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/url/url.h"

namespace {

std::atomic<size_t> allocations{0};

void* counted_alloc(size_t size, size_t alignment = 0) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (size == 0) size = 1;
  if (alignment > alignof(std::max_align_t)) {
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  }
  return std::malloc(size);
}

void* counted_alloc_or_throw(size_t size, size_t alignment = 0) {
  void* p = counted_alloc(size, alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Allocations made while an instance lives.
class AllocationCount {
 public:
  AllocationCount() : start_(allocations.load()) {}
  size_t value() const { return allocations.load() - start_; }

 private:
  size_t start_;
};

}  // namespace

void* operator new(size_t size) {
  return counted_alloc_or_throw(size);
}
void* operator new[](size_t size) {
  return counted_alloc_or_throw(size);
}
void* operator new(size_t size, std::align_val_t align) {
  return counted_alloc_or_throw(size, static_cast<size_t>(align));
}
void* operator new[](size_t size, std::align_val_t align) {
  return counted_alloc_or_throw(size, static_cast<size_t>(align));
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return counted_alloc(size);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return counted_alloc(size);
}
// GCC pairs the inlined operator new with these frees and warns of a mismatch it cannot see past:
// every allocation above comes from malloc or aligned_alloc, which free releases.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace squall {
namespace {

constexpr std::string_view kPage = "https://www.example.com/docs/guide/index.html?lang=en";

// The hrefs a crawler meets, with what they resolve to against kPage.
const std::vector<std::pair<std::string_view, std::string_view>> kLinks = {
    {"../reference/api.html", "https://www.example.com/docs/reference/api.html"},
    {"img/logo.png", "https://www.example.com/docs/guide/img/logo.png"},
    {"/search?q=async+io&page=2", "https://www.example.com/search?q=async+io&page=2"},
    {"#section-3", "https://www.example.com/docs/guide/index.html?lang=en#section-3"},
    {"?sort=desc", "https://www.example.com/docs/guide/index.html?sort=desc"},
    {"", "https://www.example.com/docs/guide/index.html?lang=en"},
    {"//cdn.example.net/lib/v2/app.js", "https://cdn.example.net/lib/v2/app.js"},
    {"https://Other.Example.ORG/a/b/../c.html?x=1#top",
     "https://other.example.org/a/c.html?x=1#top"},
    {"HTTP://WWW.EXAMPLE.COM/Path/Keeps/Case", "http://www.example.com/Path/Keeps/Case"},
    {"http://example.com:80/plain", "http://example.com/plain"},
    {"https://example.com:443/", "https://example.com/"},
    {"http://example.com:8080/alt?a=1&b=2", "http://example.com:8080/alt?a=1&b=2"},
    {"tutorial/./part%201.html", "https://www.example.com/docs/guide/tutorial/part%201.html"},
    {"a b/c d.html?x y", "https://www.example.com/docs/guide/a%20b/c%20d.html?x%20y"},
    {"../../../index.html", "https://www.example.com/index.html"},
    {"./more/deeper/page.html#frag",
     "https://www.example.com/docs/guide/more/deeper/page.html#frag"},
    {"  spaced.html  ", "https://www.example.com/docs/guide/spaced.html"},
    {"split\n/over/\tlines.html", "https://www.example.com/docs/guide/split/over/lines.html"},
    {"back\\slash\\path", "https://www.example.com/docs/guide/back/slash/path"},
    {"http://user:pass@example.com/private", "http://user:pass@example.com/private"},
    {"http://127.0.0.1:8000/local", "http://127.0.0.1:8000/local"},
    {"http://0x7f.1/", "http://127.0.0.1/"},
    {"http://[::1]:8080/v6", "http://[::1]:8080/v6"},
    {"http://[2001:DB8::A]/", "http://[2001:db8::a]/"},
    {"mailto:team@example.com", "mailto:team@example.com"},
    {"javascript:void(0)", "javascript:void(0)"},
    {"data:text/plain,hello", "data:text/plain,hello"},
    {"news/2024/06/story-title-with-many-words.html?utm_source=feed&utm_medium=rss&id=123456",
     "https://www.example.com/docs/guide/news/2024/06/"
     "story-title-with-many-words.html?utm_source=feed&utm_medium=rss&id=123456"},
};

TEST(UrlAlloc, ParseResolveAndNormaliseOfTypicalLinksAllocateNothing) {
  std::vector<Url> resolved;
  std::vector<Url> normalized;
  resolved.reserve(kLinks.size());
  normalized.reserve(kLinks.size());
  size_t failures = 0;
  size_t key_bytes = 0;

  AllocationCount count;
  UrlResult page = Url::parse(kPage);
  for (const auto& [href, expected] : kLinks) {
    UrlResult url = Url::parse(href, page ? &*page : nullptr);
    if (!url) {
      ++failures;
      continue;
    }
    key_bytes += url->dedup_key().size() + url->host().size() + url->request_target().size();
    normalized.push_back(url->normalized());
    resolved.push_back(std::move(url).value());
  }
  const size_t during = count.value();

  EXPECT_EQ(during, 0u);
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(key_bytes, 0u);
  ASSERT_EQ(resolved.size(), kLinks.size());
  for (size_t i = 0; i < kLinks.size(); ++i) {
    SCOPED_TRACE(kLinks[i].first);
    EXPECT_EQ(resolved[i].href(), kLinks[i].second);
    EXPECT_EQ(normalized[i].href(), resolved[i].dedup_key());
  }
}

TEST(UrlAlloc, CopiesMovesAndFailuresOfShortUrlsAllocateNothing) {
  UrlResult page = Url::parse(kPage);
  ASSERT_TRUE(page.ok());
  AllocationCount count;
  Url copy = *page;
  Url moved = std::move(copy);
  Url assigned = moved;
  assigned = *page;
  UrlResult bad_port = Url::parse("http://example.com:99999/", &*page);
  UrlResult bad_host = Url::parse("http://exa mple.com/");
  UrlResult no_base = Url::parse("relative/path");
  const size_t during = count.value();

  EXPECT_EQ(during, 0u);
  EXPECT_EQ(moved.href(), kPage);
  EXPECT_EQ(assigned.href(), kPage);
  EXPECT_EQ(bad_port.error(), UrlError::PortOutOfRange);
  EXPECT_EQ(bad_host.error(), UrlError::InvalidHost);
  EXPECT_EQ(no_base.error(), UrlError::MissingScheme);
}

TEST(UrlAlloc, TheCounterSeesAUrlLongerThanTheInlineBuffer) {
  // The proof above is only worth something if the counter sees the allocations that do happen.
  const std::string path(Url::kInlineLength, 'p');
  const std::string input = "https://example.com/" + path;
  AllocationCount count;
  UrlResult url = Url::parse(input);
  const size_t during = count.value();

  ASSERT_TRUE(url.ok());
  EXPECT_GE(during, 1u);
  EXPECT_EQ(url->href(), input);
  EXPECT_EQ(url->path(), "/" + path);
}

TEST(UrlAlloc, LongUrlsSurviveCopiesMovesAndAssignments) {
  const std::string input = "https://example.com/" + std::string(3 * Url::kInlineLength, 'x') +
                            "?q=" + std::string(Url::kInlineLength, 'y') + "#frag";
  UrlResult parsed = Url::parse(input);
  ASSERT_TRUE(parsed.ok());
  Url copy = *parsed;
  Url moved = std::move(copy);
  Url short_one = *Url::parse("http://a/");
  Url target = short_one;
  target = moved;  // short to long
  EXPECT_EQ(target.href(), input);
  target = short_one;  // long to short
  EXPECT_EQ(target.href(), "http://a/");
  target = std::move(moved);
  EXPECT_EQ(target.href(), input);
  EXPECT_EQ(target.query(), std::string(Url::kInlineLength, 'y').insert(0, "q="));
  EXPECT_EQ(target.fragment(), "frag");
  EXPECT_EQ(target.normalized().href(), target.dedup_key());
  Url relative = *Url::parse("../z", &target);
  EXPECT_EQ(relative.href(), "https://example.com/z");
}

TEST(UrlAlloc, AUrlResolvedAgainstALongBaseGrowsPastTheInlineBuffer) {
  const std::string base = "https://example.com/" + std::string(Url::kInlineLength - 30, 'd') + "/";
  UrlResult page = Url::parse(base);
  ASSERT_TRUE(page.ok());
  UrlResult link = Url::parse("child/page.html?query=string-long-enough-to-cross", &*page);
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link->href(),
            std::string(base).append("child/page.html?query=string-long-enough-to-cross"));
  EXPECT_GT(link->href().size(), Url::kInlineLength);
}

}  // namespace
}  // namespace squall
