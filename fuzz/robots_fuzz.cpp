// Fuzzes robots.txt parsing and matching: no crash, /robots.txt allowed, deterministic, indexed.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "squall/crawl/robots.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // The input's last line doubles as a path to match, so the fuzzer steers paths too.
  const size_t eol = input.find_last_of('\n');
  const std::string_view tail = eol == std::string_view::npos ? input : input.substr(eol + 1);

  const squall::RobotsTxt robots = squall::RobotsTxt::parse(input);
  const squall::RobotsTxt again = squall::RobotsTxt::parse(input);
  check(robots.groups().size() == again.groups().size());
  check(robots.sitemaps() == again.sitemaps());

  for (std::string_view agent : {"squall", "Googlebot/2.1", "*", "", "foobot"}) {
    const squall::RobotsRules rules = robots.rules_for(agent);
    const squall::RobotsRules rules_again = again.rules_for(agent);
    check(rules.allowed("/robots.txt"));
    for (std::string_view path : {std::string_view("/"), std::string_view("/a/b.gif?q=1"),
                                  std::string_view("/%E3%83%84*$"), tail}) {
      const squall::RobotsMatch m = rules.match(path);
      const squall::RobotsMatch m2 = rules_again.match(path);
      check(m.allowed == m2.allowed);
      check((m.rule == nullptr) == (m2.rule == nullptr));
      // The indexed matcher picks the first rule, in precedence order, that matches alone.
      if (rules.rules().size() <= 32) {
        const squall::RobotsRule* first = nullptr;
        for (const squall::RobotsRule& rule : rules.rules()) {
          if (squall::RobotsRules({rule}, std::nullopt).match(path).rule != nullptr) {
            first = &rule;
            break;
          }
        }
        check(m.rule == first);
      }
      if (m.rule != nullptr) {
        check(m.rule->text == m2.rule->text && m.rule->line == m2.rule->line);
        check(m.allowed == (m.rule->kind == squall::RobotsRuleKind::Allow));
      } else {
        check(m.allowed);
      }
    }
  }
  return 0;
}
