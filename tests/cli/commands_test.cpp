// The url, robots and links subcommands: what they print and the exit status they return.
#include "squall/cli/links_command.h"
#include "squall/cli/robots_command.h"
#include "squall/cli/url_command.h"

#include <gtest/gtest.h>

#include <sstream>

namespace squall::cli {
namespace {

struct Output {
  std::ostringstream out, err;
  int status = -1;
};

Output url(UrlCommand command) {
  Output o;
  o.status = run_url(command, o.out, o.err);
  return o;
}

TEST(UrlCommand, PrintsEachInputResolvedAgainstTheBase) {
  auto o = url({"https://example.com/a/b", false, {"../c", "?q", "//other.org/", "#f"}});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out.str(),
            "https://example.com/c\nhttps://example.com/a/b?q\nhttps://other.org/\n"
            "https://example.com/a/b#f\n");
}

TEST(UrlCommand, ABadInputPrintsAnErrorOnItsLineAndExitsOne) {
  auto o = url({std::nullopt, false, {"http://a b/", "https://ok.example/"}});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out.str().substr(0, 7), "error: ");
  EXPECT_NE(o.out.str().find("\nhttps://ok.example/\n"), std::string::npos);
}

TEST(UrlCommand, JsonHasTheUrlApisFields) {
  auto o = url({std::nullopt, true, {"HTTPS://u:p@Example.COM:443/p/../q?x#y"}});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out.str(),
            R"({"href":"https://u:p@example.com/q?x#y","protocol":"https:","username":"u",)"
            R"("password":"p","host":"example.com","hostname":"example.com","port":"",)"
            R"("pathname":"/q","search":"?x","hash":"#y"})"
            "\n");
}

TEST(UrlCommand, ABaseThatIsNotAUrlIsAUsageError) {
  auto o = url({"not a url", false, {"x"}});
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.str().find("absolute URL"), std::string::npos);
}

TEST(RobotsCommand, SaysAllowedOrDisallowedWithTheDecidingRule) {
  std::istringstream in("User-agent: *\nDisallow: /private\nAllow: /private/ok\n");
  Output o;
  o.status =
      run_robots({"-", "squall/1.0", {"https://example.com/private/x?y", "/private/ok", "/"}}, in,
                 o.out, o.err);
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out.str(),
            "https://example.com/private/x?y\tdisallowed\tDisallow: /private (line 2)\n"
            "/private/ok\tallowed\tAllow: /private/ok (line 3)\n"
            "/\tallowed\n");
}

TEST(RobotsCommand, ExitsZeroWhenEveryUrlIsAllowed) {
  std::istringstream in("User-agent: other\nDisallow: /\n");
  Output o;
  o.status = run_robots({"-", "squall", {"/a", "/b"}}, in, o.out, o.err);
  EXPECT_EQ(o.status, 0);
}

TEST(RobotsCommand, AnUnreadableFileIsAUsageError) {
  std::istringstream in;
  Output o;
  o.status = run_robots({"/nonexistent/robots.txt", "squall", {"/"}}, in, o.out, o.err);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.str().find("cannot read"), std::string::npos);
}

TEST(LinksCommand, PrintsAbsoluteHttpLinksResolvedAgainstTheBase) {
  std::istringstream in(
      "<base href=/docs/><a href=a.html>x</a><a rel=nofollow href='//cdn.example/b'>"
      "<a href=mailto:x@example.com><link rel=stylesheet href=s.css><iframe src=f.html>");
  Output o;
  o.status = run_links({"https://example.com/index.html", true, "-"}, in, o.out, o.err);
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out.str(),
            "https://example.com/docs/a.html\ta\t\tfollow\n"
            "https://cdn.example/b\ta\tnofollow\tnofollow\n"
            "https://example.com/docs/f.html\tiframe\t\tfollow\n");
}

TEST(LinksCommand, WithoutABaseRelativeLinksAreLeftOutAndCounted) {
  std::istringstream in("<a href=rel.html></a><a href=https://abs.example/></a>");
  Output o;
  o.status = run_links({std::nullopt, false, "-"}, in, o.out, o.err);
  EXPECT_EQ(o.out.str(), "https://abs.example/\n");
  EXPECT_NE(o.err.str().find("1 relative links left out"), std::string::npos);
}

}  // namespace
}  // namespace squall::cli
