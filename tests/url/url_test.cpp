// Tests for squall::Url: cases written from the WHATWG URL Standard's parser and serializer text.
#include "squall/url/url.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "support/bytes.h"

namespace squall {
namespace {

using namespace std::literals;

// One parse: input, optional base, and the expected href (nullptr when parsing must fail).
struct Case {
  std::string_view input;
  const char* base;
  const char* expected;
};

// Parses `input` from an exactly sized heap block (so ASan catches over-reads) against `base`.
UrlResult parse_exact(std::string_view input, const char* base) {
  test::ExactBytes bytes(input);
  if (base == nullptr) return Url::parse(bytes.view());
  test::ExactBytes base_bytes{std::string_view(base)};
  UrlResult parsed_base = Url::parse(base_bytes.view());
  EXPECT_TRUE(parsed_base.ok()) << "base " << base;
  if (!parsed_base) return UrlError::MissingScheme;
  return Url::parse(bytes.view(), &*parsed_base);
}

std::string describe(const Case& c) {
  std::string s = std::string("input \"").append(c.input).append("\"");
  if (c.base) s.append(" base \"").append(c.base).append("\"");
  return s;
}

void expect_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    UrlResult result = parse_exact(c.input, c.base);
    if (c.expected == nullptr) {
      EXPECT_FALSE(result.ok()) << "parsed as " << result->href();
      EXPECT_NE(result.error(), UrlError::None);
    } else {
      ASSERT_TRUE(result.ok()) << "failed: " << url_error_message(result.error());
      EXPECT_EQ(result->href(), c.expected);
      EXPECT_EQ(result.error(), UrlError::None);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The case tables, one per rule of the standard.

const std::vector<Case> kWhitespace = {
    {"  http://example.com/  ", nullptr, "http://example.com/"},
    {"\x01\x1f http://example.com/\x1f\x01", nullptr, "http://example.com/"},
    {"\0http://example.com/\0"sv, nullptr, "http://example.com/"},
    {"ht\ttp://exa\nmple.com/pa\rth", nullptr, "http://example.com/path"},
    {"\t\n http://a.com/", nullptr, "http://a.com/"},
    {"http://example.com/a b", nullptr, "http://example.com/a%20b"},
    {"http://example.com/?a\nb", nullptr, "http://example.com/?ab"},
    {"http://example.com/#a\tb", nullptr, "http://example.com/#ab"},
    {"http://exa mple.com/", nullptr, nullptr},
    {"http://example.com/\x7f", nullptr, "http://example.com/%7F"},
    {"  foo  ", "http://a/b/", "http://a/b/foo"},
    {" \t ", "http://a/b?q#f", "http://a/b?q"},
};

const std::vector<Case> kBackslashes = {
    {"http:\\\\example.com\\a\\b", nullptr, "http://example.com/a/b"},
    {"http:/\\example.com/", nullptr, "http://example.com/"},
    {"https:\\\\\\\\example.com", nullptr, "https://example.com/"},
    {"http://example.com\\a?b\\c#d\\e", nullptr, "http://example.com/a?b\\c#d\\e"},
    {"\\x", "http://a/b/c", "http://a/x"},
    {"\\\\host\\p", "http://a/b", "http://host/p"},
    {"/\\host/p", "http://a/b", "http://host/p"},
    {"foo://host\\a/", nullptr, nullptr},
    {"foo:/a\\b", nullptr, "foo:/a\\b"},
    {"\\x", "foo://h/a/b", "foo://h/a/\\x"},
    {"http://a:8080\\x", nullptr, "http://a:8080/x"},
};

const std::vector<Case> kSchemes = {
    {"HTTP://EXAMPLE.COM/A", nullptr, "http://example.com/A"},
    {"HtTpS://a/", nullptr, "https://a/"},
    {"Foo+Bar-1.x:rest", nullptr, "foo+bar-1.x:rest"},
    {"1http://a/", nullptr, nullptr},
    {"ht%74p://a/", nullptr, nullptr},
    {"ht%74p://a/", "http://h/b/", "http://h/b/ht%74p://a/"},
    {"http:example.com", nullptr, "http://example.com/"},
    {"http:example.com", "http://other/x", "http://other/example.com"},
    {"https:example.com", "http://other/x", "https://example.com/"},
    {"mailto:someone@example.com", nullptr, "mailto:someone@example.com"},
    {"MAILTO:Someone@Example.com", nullptr, "mailto:Someone@Example.com"},
    {"javascript:alert(1)", nullptr, "javascript:alert(1)"},
    {"javascript:void(0)", "http://a/b", "javascript:void(0)"},
    {"tel:+1-555-0100", nullptr, "tel:+1-555-0100"},
    {"about:blank", nullptr, "about:blank"},
    {"urn:isbn:0451450523", nullptr, "urn:isbn:0451450523"},
    {"blob:https://a.example/1234", nullptr, "blob:https://a.example/1234"},
    {"git+ssh://git@github.com/x/y.git", nullptr, "git+ssh://git@github.com/x/y.git"},
    {"ftp://ftp.example.com/pub/", nullptr, "ftp://ftp.example.com/pub/"},
    {"ws://a.example/chat", nullptr, "ws://a.example/chat"},
    {"wss://a.example/chat", nullptr, "wss://a.example/chat"},
    {"foo:", nullptr, "foo:"},
    {"foo://", nullptr, "foo://"},
    {"foo:///x", nullptr, "foo:///x"},
    {"foo://host", nullptr, "foo://host"},
    {"foo://host?q", nullptr, "foo://host?q"},
    {"web+demo:/.//not-a-host/", nullptr, "web+demo:/.//not-a-host/"},
    {"web+demo:/..//x", nullptr, "web+demo:/.//x"},
    {"web+demo://host//x", nullptr, "web+demo://host//x"},
    {"sc:\\../", nullptr, "sc:\\../"},
    {"a:b:c", nullptr, "a:b:c"},
};

const std::vector<Case> kUserinfo = {
    {"http://user:pass@host/", nullptr, "http://user:pass@host/"},
    {"http://us er:pa ss@host/", nullptr, "http://us%20er:pa%20ss@host/"},
    {"http://user@host/", nullptr, "http://user@host/"},
    {"http://:pass@host/", nullptr, "http://:pass@host/"},
    {"http://user:@host/", nullptr, "http://user@host/"},
    {"http://@host/", nullptr, "http://host/"},
    {"http://:@host/", nullptr, "http://host/"},
    {"http://a@b@host/", nullptr, "http://a%40b@host/"},
    {"http://a:b:c@host/", nullptr, "http://a:b%3Ac@host/"},
    {"http://a:b@c:d@host/", nullptr, "http://a:b%40c%3Ad@host/"},
    {"http://\xC3\xBC:\xC3\xA9@host/", nullptr, "http://%C3%BC:%C3%A9@host/"},
    {"http://a;b=c@host/", nullptr, "http://a%3Bb%3Dc@host/"},
    {"http://a%20b@host/", nullptr, "http://a%20b@host/"},
    {"http://a[b]^|@host/", nullptr, "http://a%5Bb%5D%5E%7C@host/"},
    {"http://a!$&'()*+,~@host/", nullptr, "http://a!$&'()*+,~@host/"},
    {"http://user:pass@host:8080/", nullptr, "http://user:pass@host:8080/"},
    {"http://user@/", nullptr, nullptr},
    {"http://user@", nullptr, nullptr},
    {"http://user:pass@:80/", nullptr, nullptr},
    {"foo://user@/", nullptr, nullptr},
    {"foo://u:p@h/x", nullptr, "foo://u:p@h/x"},
};

const std::vector<Case> kIpv4 = {
    {"http://192.168.0.1/", nullptr, "http://192.168.0.1/"},
    {"http://0x7f.1/", nullptr, "http://127.0.0.1/"},
    {"http://0X7F.0.0.1/", nullptr, "http://127.0.0.1/"},
    {"http://0177.0.0.1/", nullptr, "http://127.0.0.1/"},
    {"http://2130706433/", nullptr, "http://127.0.0.1/"},
    {"http://017700000001/", nullptr, "http://127.0.0.1/"},
    {"http://0x7f000001/", nullptr, "http://127.0.0.1/"},
    {"http://127.1/", nullptr, "http://127.0.0.1/"},
    {"http://127.0.1/", nullptr, "http://127.0.0.1/"},
    {"http://1.2.3.4./", nullptr, "http://1.2.3.4/"},
    {"http://0x/", nullptr, "http://0.0.0.0/"},
    {"http://0/", nullptr, "http://0.0.0.0/"},
    {"http://00/", nullptr, "http://0.0.0.0/"},
    {"http://4294967295/", nullptr, "http://255.255.255.255/"},
    {"http://0xffffffff/", nullptr, "http://255.255.255.255/"},
    {"http://1.2.65535/", nullptr, "http://1.2.255.255/"},
    {"http://1.16777215/", nullptr, "http://1.255.255.255/"},
    {"http://1.0x/", nullptr, "http://1.0.0.0/"},
    {"http://0x7f.1:80/", nullptr, "http://127.0.0.1/"},
    {"http://%30x7f.1/", nullptr, "http://127.0.0.1/"},
    {"http://\xEF\xBC\x91\xEF\xBC\x92\xEF\xBC\x97.0.0.1/", nullptr, "http://127.0.0.1/"},
    {"http://user@0x7f.1:8080/x", nullptr, "http://user@127.0.0.1:8080/x"},
    {"http://4294967296/", nullptr, nullptr},
    {"http://0x100000000/", nullptr, nullptr},
    {"http://999999999999999999999/", nullptr, nullptr},
    {"http://256.0.0.1/", nullptr, nullptr},
    {"http://1.2.3.256/", nullptr, nullptr},
    {"http://1.2.65536/", nullptr, nullptr},
    {"http://0.0.0.0x100/", nullptr, nullptr},
    {"http://1.2.3.4.5/", nullptr, nullptr},
    {"http://1.2.3.09/", nullptr, nullptr},
    {"http://08/", nullptr, nullptr},
    {"http://foo.1/", nullptr, nullptr},
    {"http://foo.0x10/", nullptr, nullptr},
    {"http://1..2/", nullptr, nullptr},
    {"http://.1/", nullptr, nullptr},
    {"http://0x1g/", nullptr, "http://0x1g/"},
    {"http://1.2.3.x/", nullptr, "http://1.2.3.x/"},
    {"http://1.2.3.4../", nullptr, "http://1.2.3.4../"},
    {"http://09x/", nullptr, "http://09x/"},
    {"foo://0x7f.1/", nullptr, "foo://0x7f.1/"},
    {"file://0x7f.1/x", nullptr, "file://127.0.0.1/x"},
};

const std::vector<Case> kIpv6 = {
    {"http://[::1]/", nullptr, "http://[::1]/"},
    {"http://[0:0:0:0:0:0:0:1]/", nullptr, "http://[::1]/"},
    {"http://[0000:0000:0000:0000:0000:0000:0000:0001]/", nullptr, "http://[::1]/"},
    {"http://[1:0:0:2::3:0]/", nullptr, "http://[1::2:0:0:3:0]/"},
    {"http://[1:0:0:2:0:0:0:3]/", nullptr, "http://[1:0:0:2::3]/"},
    {"http://[2001:DB8::1]/", nullptr, "http://[2001:db8::1]/"},
    {"http://[::]/", nullptr, "http://[::]/"},
    {"http://[1:0:0:0:0:0:0:0]/", nullptr, "http://[1::]/"},
    {"http://[0:1:0:1:0:1:0:1]/", nullptr, "http://[0:1:0:1:0:1:0:1]/"},
    {"http://[1:2:3:4:5:6:7:8]/", nullptr, "http://[1:2:3:4:5:6:7:8]/"},
    {"http://[::ffff:192.0.2.128]/", nullptr, "http://[::ffff:c000:280]/"},
    {"http://[::127.0.0.1]/", nullptr, "http://[::7f00:1]/"},
    {"http://[1:2:3:4:5:6:1.2.3.4]/", nullptr, "http://[1:2:3:4:5:6:102:304]/"},
    {"http://[::1]:8080/", nullptr, "http://[::1]:8080/"},
    {"http://[::1]:80/", nullptr, "http://[::1]/"},
    {"http://[0::0:0]/", nullptr, "http://[::]/"},
    {"http://[::0:a:b:c:d:e:f]/", nullptr, "http://[::a:b:c:d:e:f]/"},
    {"http://[1::1:2:3:4:5:6]/", nullptr, "http://[1:0:1:2:3:4:5:6]/"},
    {"foo://[::1]/", nullptr, "foo://[::1]/"},
    {"file://[::1]/x", nullptr, "file://[::1]/x"},
    {"http://[1:2:3:4:5:6:7:8:9]/", nullptr, nullptr},
    {"http://[1::2::3]/", nullptr, nullptr},
    {"http://[::1/", nullptr, nullptr},
    {"http://[::1", nullptr, nullptr},
    {"http://[::1]x/", nullptr, nullptr},
    {"http://[:1]/", nullptr, nullptr},
    {"http://[1:]/", nullptr, nullptr},
    {"http://[12345::]/", nullptr, nullptr},
    {"http://[::1.2.3]/", nullptr, nullptr},
    {"http://[::1.2.3.4.5]/", nullptr, nullptr},
    {"http://[::1.2.3.04]/", nullptr, nullptr},
    {"http://[::1.2.3.256]/", nullptr, nullptr},
    {"http://[1:2:3:4:5:6:7:1.2.3.4]/", nullptr, nullptr},
    {"http://[::1%25eth0]/", nullptr, nullptr},
    {"http://[]/", nullptr, nullptr},
    {"http://[g::1]/", nullptr, nullptr},
    {"http://[1:2:3:4:5:6:7]/", nullptr, nullptr},
    {"http://[::1.]/", nullptr, nullptr},
};

const std::vector<Case> kDomains = {
    {"http://EXAMPLE.com/", nullptr, "http://example.com/"},
    {"http://B\xC3\xBC"
     "cher.example/",
     nullptr, "http://xn--bcher-kva.example/"},
    {"http://B\xC3\x9C"
     "CHER.example/",
     nullptr, "http://xn--bcher-kva.example/"},
    {"http://"
     "\xEF\xBC\xA5\xEF\xBC\xB8\xEF\xBC\xA1\xEF\xBC\xAD\xEF\xBC\xB0\xEF\xBC\xAC\xEF\xBC\xA5.com/",
     nullptr, "http://example.com/"},
    {"http://example\xE3\x80\x82"
     "com/",
     nullptr, "http://example.com/"},
    {"http://example\xEF\xBC\x8E"
     "com/",
     nullptr, "http://example.com/"},
    {"http://example\xEF\xBD\xA1"
     "com/",
     nullptr, "http://example.com/"},
    {"http://fa\xC3\x9F.de/", nullptr, "http://xn--fa-hia.de/"},
    {"http://xn--bcher-kva.example/", nullptr, "http://xn--bcher-kva.example/"},
    {"http://XN--BCHER-KVA.example/", nullptr, "http://xn--bcher-kva.example/"},
    {"http://\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E.jp/", nullptr, "http://xn--wgv71a119e.jp/"},
    {"http://a\xC2\xAD"
     "b.com/",
     nullptr, "http://ab.com/"},
    {"http://ex%41mple.com/", nullptr, "http://example.com/"},
    {"http://%C3%BC.example/", nullptr, "http://xn--tda.example/"},
    {"http://-foo-.com/", nullptr, "http://-foo-.com/"},
    {"http://ab--cd.com/", nullptr, "http://ab--cd.com/"},
    {"http://a_b.example/", nullptr, "http://a_b.example/"},
    {"http://a{b}.example/", nullptr, "http://a{b}.example/"},
    {"http://example.com./", nullptr, "http://example.com./"},
    {"http://a..b/", nullptr, "http://a..b/"},
    {"http://www.example.com:8080/", nullptr, "http://www.example.com:8080/"},
    {"http://xn--/", nullptr, nullptr},
    {"http://xn--a/", nullptr, nullptr},
    {"http://xn--zca.example/", nullptr, "http://xn--zca.example/"},
    {"http://xn--mgb1d.example/", nullptr, "http://xn--mgb1d.example/"},
    {"http://a.b.c.xn--pokxncvks/", nullptr, nullptr},
    {"http://10.0.0.xn--pokxncvks/", nullptr, nullptr},
    {"http://xn--abc/", nullptr, nullptr},
    {"http://xn--1ug.example/", nullptr, nullptr},
    {"http://\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xBD\xA0\xE5\xA5\xBD/", nullptr, "http://xn--6qqa088eba/"},
    {"http://\xEF\xBD\x86\xEF\xBD\x8F\xEF\xBD\x8F\xEF\xBC\x8E\xEF\xBD\x82\xEF\xBD\x81\xEF\xBD\x92/",
     nullptr, "http://foo.bar/"},
    {"http://\xEF\xBC\x85\xEF\xBC\x94\xEF\xBC\x91.com/", nullptr, nullptr},
    {"http://%E2%80%8D.com/", nullptr, nullptr},
    {"http://1.2.3.4%E3%80%82/", nullptr, "http://1.2.3.4/"},
    {"http://\xC2\xAD/", nullptr, nullptr},
    {"http://%FF.com/", nullptr, nullptr},
    {"http://\xFF.com/", nullptr, nullptr},
    {"http://a\xE2\x80\x8C"
     "b.com/",
     nullptr, nullptr},
    {"http://\xD9\xA1"
     "a.com/",
     nullptr, nullptr},
    {"http://ex%2541mple.com/", nullptr, nullptr},
    {"http://a%00b/", nullptr, nullptr},
    {"http://a%7Fb/", nullptr, nullptr},
    {"http://exa%20mple/", nullptr, nullptr},
    {"http://ex%2Fample/", nullptr, nullptr},
};

const std::vector<Case> kForbiddenHosts = {
    {"http://a b/", nullptr, nullptr},
    {"http://a<b/", nullptr, nullptr},
    {"http://a>b/", nullptr, nullptr},
    {"http://a^b/", nullptr, nullptr},
    {"http://a|b/", nullptr, nullptr},
    {"http://a%b/", nullptr, nullptr},
    {"http://a[b/", nullptr, nullptr},
    {"http://a]b/", nullptr, nullptr},
    {"http://a\x01"
     "b/",
     nullptr, nullptr},
    {"http://a\x7f"
     "b/",
     nullptr, nullptr},
    {"foo://a b/", nullptr, nullptr},
    {"foo://a<b/", nullptr, nullptr},
    {"foo://a^b/", nullptr, nullptr},
    {"foo://a%b/", nullptr, "foo://a%b/"},
    {"foo://a\x01"
     "b/",
     nullptr, "foo://a%01b/"},
    {"foo://\xC3\xBC/", nullptr, "foo://%C3%BC/"},
    {"foo://EXAMPLE.com/", nullptr, "foo://EXAMPLE.com/"},
    {"foo://a{b/", nullptr, "foo://a{b/"},
};

const std::vector<Case> kPercentEncoding = {
    {"http://a/ \"<>`{}^", nullptr, "http://a/%20%22%3C%3E%60%7B%7D%5E"},
    {"http://a/'|[]!$&()*+,;=:@~", nullptr, "http://a/'|[]!$&()*+,;=:@~"},
    {"http://a/%zz%4", nullptr, "http://a/%zz%4"},
    {"http://a/%41", nullptr, "http://a/%41"},
    {"http://a/\xC3\xA9", nullptr, "http://a/%C3%A9"},
    {"http://a/\x01\x1fx", nullptr, "http://a/%01%1Fx"},
    {"http://a/\xF0\x9F\x92\xA9", nullptr, "http://a/%F0%9F%92%A9"},
    {"http://a/? \"<>'`{}", nullptr, "http://a/?%20%22%3C%3E%27`{}"},
    {"foo://a/? \"<>'`{}", nullptr, "foo://a/?%20%22%3C%3E'`{}"},
    {"http://a/?a?b/c", nullptr, "http://a/?a?b/c"},
    {"http://a/?\xC3\xA9", nullptr, "http://a/?%C3%A9"},
    {"http://a/?%zz&x=%41", nullptr, "http://a/?%zz&x=%41"},
    {"http://a/# \"<>`'{}#", nullptr, "http://a/#%20%22%3C%3E%60'{}#"},
    {"http://a/#\xC3\xA9", nullptr, "http://a/#%C3%A9"},
    {"http://a/#?x/y", nullptr, "http://a/#?x/y"},
    {"mailto:a b@c", nullptr, "mailto:a b@c"},
    {"mailto:a\x01"
     "b",
     nullptr, "mailto:a%01b"},
    {"javascript:alert(\"\xC3\xA9\")", nullptr, "javascript:alert(\"%C3%A9\")"},
    {"sc:a b?q", nullptr, "sc:a b?q"},
    {"sc:a ?q", nullptr, "sc:a%20?q"},
    {"sc:a  #f", nullptr, "sc:a %20#f"},
    {"sc:a<b>{c}", nullptr, "sc:a<b>{c}"},
    {"foo:/a b", nullptr, "foo:/a%20b"},
};

const std::vector<Case> kDotSegments = {
    {"http://a/b/./c", nullptr, "http://a/b/c"},
    {"http://a/b/../c", nullptr, "http://a/c"},
    {"http://h/a/./b/../c", nullptr, "http://h/a/c"},
    {"http://a/b/c/..", nullptr, "http://a/b/"},
    {"http://a/b/c/.", nullptr, "http://a/b/c/"},
    {"http://a/..", nullptr, "http://a/"},
    {"http://a/../../x", nullptr, "http://a/x"},
    {"http://a/b/%2e%2E/c", nullptr, "http://a/c"},
    {"http://a/b/%2e/c", nullptr, "http://a/b/c"},
    {"http://a/b/.%2e/c", nullptr, "http://a/c"},
    {"http://a/b/%2E./c", nullptr, "http://a/c"},
    {"http://a/b/...", nullptr, "http://a/b/..."},
    {"http://a/b/.../c", nullptr, "http://a/b/.../c"},
    {"http://a/b\\..\\c", nullptr, "http://a/c"},
    {"http://a/b/..?q", nullptr, "http://a/?q"},
    {"http://a/b/..#f", nullptr, "http://a/#f"},
    {"http://a/b/.?q", nullptr, "http://a/b/?q"},
    {"http://a/b/%2e%2e%2fc", nullptr, "http://a/b/%2e%2e%2fc"},
    {"http://a/b/%252e", nullptr, "http://a/b/%252e"},
    {"http://a/b/.x/..x", nullptr, "http://a/b/.x/..x"},
    {"http://a/b//../c", nullptr, "http://a/b/c"},
    {"foo://a/b/../c", nullptr, "foo://a/c"},
    {"foo:/a/../b", nullptr, "foo:/b"},
    {"foo:/a/./b/%2e", nullptr, "foo:/a/b/"},
};

// RFC 3986 section 5.4's examples, which the WHATWG standard resolves the same way for http.
const char* const kRfcBase = "http://a/b/c/d;p?q";
const std::vector<Case> kRelative = {
    {"g:h", kRfcBase, "g:h"},
    {"g", kRfcBase, "http://a/b/c/g"},
    {"./g", kRfcBase, "http://a/b/c/g"},
    {"g/", kRfcBase, "http://a/b/c/g/"},
    {"/g", kRfcBase, "http://a/g"},
    {"//g", kRfcBase, "http://g/"},
    {"?y", kRfcBase, "http://a/b/c/d;p?y"},
    {"g?y", kRfcBase, "http://a/b/c/g?y"},
    {"#s", kRfcBase, "http://a/b/c/d;p?q#s"},
    {"g#s", kRfcBase, "http://a/b/c/g#s"},
    {"g?y#s", kRfcBase, "http://a/b/c/g?y#s"},
    {";x", kRfcBase, "http://a/b/c/;x"},
    {"g;x", kRfcBase, "http://a/b/c/g;x"},
    {"g;x?y#s", kRfcBase, "http://a/b/c/g;x?y#s"},
    {"", kRfcBase, "http://a/b/c/d;p?q"},
    {".", kRfcBase, "http://a/b/c/"},
    {"./", kRfcBase, "http://a/b/c/"},
    {"..", kRfcBase, "http://a/b/"},
    {"../", kRfcBase, "http://a/b/"},
    {"../g", kRfcBase, "http://a/b/g"},
    {"../..", kRfcBase, "http://a/"},
    {"../../", kRfcBase, "http://a/"},
    {"../../g", kRfcBase, "http://a/g"},
    {"../../../g", kRfcBase, "http://a/g"},
    {"../../../../g", kRfcBase, "http://a/g"},
    {"/./g", kRfcBase, "http://a/g"},
    {"/../g", kRfcBase, "http://a/g"},
    {"g.", kRfcBase, "http://a/b/c/g."},
    {".g", kRfcBase, "http://a/b/c/.g"},
    {"g..", kRfcBase, "http://a/b/c/g.."},
    {"..g", kRfcBase, "http://a/b/c/..g"},
    {"./../g", kRfcBase, "http://a/b/g"},
    {"./g/.", kRfcBase, "http://a/b/c/g/"},
    {"g/./h", kRfcBase, "http://a/b/c/g/h"},
    {"g/../h", kRfcBase, "http://a/b/c/h"},
    {"g;x=1/./y", kRfcBase, "http://a/b/c/g;x=1/y"},
    {"g;x=1/../y", kRfcBase, "http://a/b/c/y"},
    {"g?y/./x", kRfcBase, "http://a/b/c/g?y/./x"},
    {"g?y/../x", kRfcBase, "http://a/b/c/g?y/../x"},
    {"g#s/./x", kRfcBase, "http://a/b/c/g#s/./x"},
    {"g#s/../x", kRfcBase, "http://a/b/c/g#s/../x"},
    {"http:g", kRfcBase, "http://a/b/c/g"},
    {"https:g", kRfcBase, "https://g/"},
    {"///g", kRfcBase, "http://g/"},
    {"\\\\g", kRfcBase, "http://g/"},
    {"#", kRfcBase, "http://a/b/c/d;p?q#"},
    {"?", kRfcBase, "http://a/b/c/d;p?"},
    {"", "http://a/b?q#f", "http://a/b?q"},
    {"#g", "http://a/b?q#f", "http://a/b?q#g"},
    {"?x", "http://a/b?q#f", "http://a/b?x"},
    {"//other.com", "http://a/b/c", "http://other.com/"},
    {"//user@other:81/x", "http://a/b/c", "http://user@other:81/x"},
    {"//cdn.example/x.js", "https://site.example/", "https://cdn.example/x.js"},
    {"//EXAMPLE.com:443/", "https://a/", "https://example.com/"},
    {"b", "http://a", "http://a/b"},
    {"?q#f", "http://a/b/c", "http://a/b/c?q#f"},
    {"d?", "http://a/b/c?x", "http://a/b/d?"},
    {"c", "http://a:8080/b", "http://a:8080/c"},
    {"c", "http://u:p@a/b", "http://u:p@a/c"},
    {"//b/", "http://u:p@a/x", "http://b/"},
    {"//b/", "http://a:81/x", "http://b/"},
    {"//b:82/", "http://a:81/x", "http://b:82/"},
    {"///", "foo://h:81/x", "foo:///"},
    {"//h2/x", "foo://h:81/a/b", "foo://h2/x"},
    {"http:/x", "http://a/b/c", "http://a/x"},
    {"http:///x", "http://a/b/c", "http://x/"},
    {"HTTP://A/", "https://b/", "http://a/"},
    {"http:", "http://a/b?q#f", "http://a/b?q"},
    {"http:?x", "http://a/b?q#f", "http://a/b?x"},
    {"https:", "http://a/b", nullptr},
    {"http://a@b:c@d/", nullptr, "http://a%40b:c@d/"},
    {"http://a:b@c@d/", nullptr, "http://a:b%40c@d/"},
    {"../x?y#z", "http://a/b/c/d", "http://a/b/x?y#z"},
    {"..", "http://a/", "http://a/"},
    {"x", "http://a/b/", "http://a/b/x"},
    {"x/", "http://a/b", "http://a/x/"},
    {"c", "foo://host/a/b", "foo://host/a/c"},
    {"../c", "foo://host/a/b", "foo://host/c"},
    {"//h2/x", "foo://host/a/b", "foo://h2/x"},
    {"/x", "foo://host/a/b", "foo://host/x"},
    {"?q", "foo://host/a/b", "foo://host/a/b?q"},
    {"x", "foo:/a/b", "foo:/a/x"},
    {"y", "mailto:x", nullptr},
    {"#f", "mailto:x", "mailto:x#f"},
    {"#x", "data:text/plain,hi", "data:text/plain,hi#x"},
    {"#x", "mailto:a?b#c", "mailto:a?b#x"},
    {"b", "http://0x7f.1/a", "http://127.0.0.1/b"},
    {"../c", "http://[::1]:8080/a/b", "http://[::1]:8080/c"},
    {"c", "http://EXAMPLE.com/a/./b/", "http://example.com/a/b/c"},
    {"x", "http://ex%41mple.com/", "http://example.com/x"},
    {"?q", "http://XN--BCHER-KVA.example/a", "http://xn--bcher-kva.example/a?q"},
    {"../d#g", "http://a/b/c?q#f", "http://a/d#g"},
    {"%2e%2e/d", "http://a/b/c/", "http://a/b/d"},
    {"d/%2e", "http://a/b/c", "http://a/b/d/"},
    {"./", "http://a/b/c?q", "http://a/b/"},
    {"..?x", "http://a/b/c/d", "http://a/b/?x"},
    {"/path", nullptr, nullptr},
    {"path", nullptr, nullptr},
    {"", nullptr, nullptr},
    {"//host/", nullptr, nullptr},
    {"?q", nullptr, nullptr},
    {"#f", nullptr, nullptr},
};

const std::vector<Case> kPorts = {
    {"http://a:80/", nullptr, "http://a/"},
    {"https://a:443/", nullptr, "https://a/"},
    {"http://a:443/", nullptr, "http://a:443/"},
    {"https://a:80/", nullptr, "https://a:80/"},
    {"http://a:0/", nullptr, "http://a:0/"},
    {"http://a:65535/", nullptr, "http://a:65535/"},
    {"http://a:/", nullptr, "http://a/"},
    {"http://a:", nullptr, "http://a/"},
    {"http://a:0080/", nullptr, "http://a/"},
    {"http://a:000000000000000000008080/", nullptr, "http://a:8080/"},
    {"http://a:8080", nullptr, "http://a:8080/"},
    {"http://a:8080?q", nullptr, "http://a:8080/?q"},
    {"ws://a:80/", nullptr, "ws://a/"},
    {"wss://a:443/", nullptr, "wss://a/"},
    {"ftp://a:21/", nullptr, "ftp://a/"},
    {"foo://a:80/", nullptr, "foo://a:80/"},
    {"foo://a:/", nullptr, "foo://a/"},
    {"http://a:65536/", nullptr, nullptr},
    {"http://a:99999999999999999999/", nullptr, nullptr},
    {"http://a:8x/", nullptr, nullptr},
    {"http://a:-1/", nullptr, nullptr},
    {"http://a: 80/", nullptr, nullptr},
    {"http://a:80:80/", nullptr, nullptr},
    {"http://:80/", nullptr, nullptr},
    {"foo://:80/", nullptr, nullptr},
    {"file://a:80/", nullptr, nullptr},
};

const std::vector<Case> kFiles = {
    {"file:///C:/x", nullptr, "file:///C:/x"},
    {"file:c:\\foo", nullptr, "file:///c:/foo"},
    {"file://localhost/etc", nullptr, "file:///etc"},
    {"file://LOCALHOST/etc", nullptr, "file:///etc"},
    {"file:/etc/passwd", nullptr, "file:///etc/passwd"},
    {"file:etc", nullptr, "file:///etc"},
    {"file:", nullptr, "file:///"},
    {"file://host/share", nullptr, "file://host/share"},
    {"file://HOST/", nullptr, "file://host/"},
    {"file://C|/x", nullptr, "file:///C:/x"},
    {"file:///C|/x", nullptr, "file:///C:/x"},
    {"file:///C:/../x", nullptr, "file:///C:/x"},
    {"file:///a/C:/../x", nullptr, "file:///a/x"},
    {"file:\\\\host\\x", nullptr, "file://host/x"},
    {"x", "file:///a/b", "file:///a/x"},
    {"/x", "file:///C:/a/b", "file:///C:/x"},
    {"/x", "file://host/a/b", "file://host/x"},
    {"//host/x", "file:///a", "file://host/x"},
    {"?q", "file:///a/b", "file:///a/b?q"},
    {"", "file:///a/b?q#f", "file:///a/b?q"},
    {"C|/x", "file:///a/b", "file:///C:/x"},
    {"..", "file:///C:/", "file:///C:/"},
    {"file:x", "http://a/b", "file:///x"},
    {"file:x", "file:///a/b", "file:///a/x"},
    {"file:", "file:///a/b?q#f", "file:///a/b?q"},
    {"//", "file:///a/b", "file:///"},
    {"file://a%2Fb/", nullptr, nullptr},
    {"file://localhost", nullptr, "file:///"},
};

const std::vector<Case> kDataUrls = {
    {"data:,Hello", nullptr, "data:,Hello"},
    {"DATA:text/html,<p>Hi</p>", nullptr, "data:text/html,<p>Hi</p>"},
    {"data:text/plain;base64,SGVs bG8=", nullptr, "data:text/plain;base64,SGVs bG8="},
    {"data:text/plain,a#frag", nullptr, "data:text/plain,a#frag"},
    {"data:text/plain,a?b", nullptr, "data:text/plain,a?b"},
    {"data:,\xC3\xA9", nullptr, "data:,%C3%A9"},
};

// Corner cases where browsers agree with the standard's letter, however odd it looks.
const char* const kPageBase = "http://example.org/foo/bar";
const std::vector<Case> kQuirks = {
    {"http::@c:29", kPageBase, "http://example.org/foo/:@c:29"},
    {"http://f:21/ b ? d # e ", kPageBase, "http://f:21/%20b%20?%20d%20#%20e"},
    {"http:/:@/www.example.com", nullptr, nullptr},
    {"http:@:www.example.com", nullptr, nullptr},
    {"http://www.@pple.com", nullptr, "http://www.@pple.com/"},
    {"http:a:@www.example.com", nullptr, "http://a@www.example.com/"},
    {"http:/a:b@www.example.com", nullptr, "http://a:b@www.example.com/"},
    {"http://@:www.example.com", nullptr, nullptr},
    {"//", kPageBase, nullptr},
    {"http://example.com////../..", nullptr, "http://example.com//"},
    {"http://example.com/foo/bar//../..", nullptr, "http://example.com/foo/"},
    {"http:/\\/\\/\\a.com", nullptr, "http://a.com/"},
    {"http://%25DOMAIN:foobar@foodomain.com/", nullptr, "http://%25DOMAIN:foobar@foodomain.com/"},
    {"http://!\"$&'()*+,-.;=_`{}~/", nullptr, "http://!\"$&'()*+,-.;=_`{}~/"},
    {"sc://\x1f!\"$&'()*+,-.;=_`{}~/", nullptr, "sc://%1F!\"$&'()*+,-.;=_`{}~/"},
    {"ftp://example.com%80/", nullptr, nullptr},
    {"http://[0:0:0:0:0:0:13.1.68.3]", nullptr, "http://[::d01:4403]/"},
    {"http://[::127.0.0.0.1]", nullptr, nullptr},
    {"http://[0:.0]", nullptr, nullptr},
    {"http://[0:1.23.23]", nullptr, nullptr},
    {"http://[www.google.com]/", nullptr, nullptr},
    {"sc://@/", nullptr, nullptr},
    {"sc://te@s:t@/", nullptr, nullptr},
    {"sc://:/", nullptr, nullptr},
    {"sc://[/", nullptr, nullptr},
    {"sc://]/", nullptr, nullptr},
    {"x", "sc://\xC3\xB1", "sc://%C3%B1/x"},
    {"test-a-colon-slash-slash.html", "a://", "a:///test-a-colon-slash-slash.html"},
    {"test-a-colon-slash-slash-b.html", "a://b", "a://b/test-a-colon-slash-slash-b.html"},
    {"non-spec:/a/..//", nullptr, "non-spec:/.//"},
    {"../path", "non-spec:/.//p", "non-spec:/path"},
    {"/.//path", "non-spec:/p", "non-spec:/.//path"},
    {"http://0..0x300/", nullptr, nullptr},
    {"http://foo.09..", nullptr, "http://foo.09../"},
    {"http://0999999999999999999/", nullptr, nullptr},
    {"http://foo.0XFfFfFfFfFfFfFfFfFfAcE123", nullptr, nullptr},
    {"https://0x.0x.0", nullptr, "https://0.0.0.0/"},
    {"http://%30%78%63%30%2e%30%32%35%30.01%2e", nullptr, "http://192.168.0.1/"},
    {"http://%3g%78%63%30%2e%30%32%35%30%2E.01", nullptr, nullptr},
    {"http://\xEF\xBC\x90\xEF\xBC\xB8\xEF\xBD\x83\xEF\xBC\x90\xEF\xBC\x8E\xEF\xBC\x90\xEF\xBC\x92"
     "\xEF\xBC\x95\xEF\xBC\x90\xEF\xBC\x8E\xEF\xBC\x90\xEF\xBC\x91",
     nullptr, "http://192.168.0.1/"},
    {"http://example.org/test?a#b\0c"sv, nullptr, "http://example.org/test?a#b%00c"},
    {"C|#x", "file:///D:/y", "file:///C:#x"},
    {"/c:/foo/bar", "file://host/path", "file://host/c:/foo/bar"},
    {"file://localhost//a//../..//", nullptr, "file://///"},
    {"file:/.//p", nullptr, "file:////p"},
    {"/..//localhost//pig", "file://lion/", "file://lion//localhost//pig"},
    {"file://", "file://ape/", "file:///"},
    {"file:..", "http://www.example.com/test", "file:///"},
    {"a:\t foo.com", kPageBase, "a: foo.com"},
    {"  :foo.com   \n", kPageBase, "http://example.org/foo/:foo.com"},
    {":#", kPageBase, "http://example.org/foo/:#"},
    {"#\\", kPageBase, "http://example.org/foo/bar#\\"},
    {"?;x", kPageBase, "http://example.org/foo/bar?;x"},
    {"lolscheme:x x#x x", nullptr, "lolscheme:x x#x%20x"},
    {"", "http://a/b?", "http://a/b?"},
    {"#f", "m:x?", "m:x?#f"},
    {"x", "file:///C:b", "file:///x"},
    {"/", "file:///e:eb", "file:///"},
    {"l:/%2e.", nullptr, "l:/"},
    {"/..#", "p://a/..", "p://a/#"},
    {"non-spec:/..", nullptr, "non-spec:/"},
    {"..", "h://", "h:///"},
    {"/", "file:e:*", "file:///"},
    {"http://\xE2\x85\xA3.example/", nullptr, "http://iv.example/"},
    {"http://ex\xC3\xA4mple.\xC3\x84/", nullptr, "http://xn--exmple-cua.xn--4ca/"},
};

const std::vector<const std::vector<Case>*> kAllTables = {
    &kWhitespace, &kBackslashes, &kSchemes,        &kUserinfo,        &kIpv4,
    &kIpv6,       &kDomains,     &kForbiddenHosts, &kPercentEncoding, &kDotSegments,
    &kRelative,   &kPorts,       &kFiles,          &kDataUrls,        &kQuirks,
};

// ---------------------------------------------------------------------------------------------

TEST(Url, StripsLeadingAndTrailingControlsAndSpacesAndRemovesTabsAndNewlines) {
  expect_cases(kWhitespace);
}

TEST(Url, TreatsBackslashesAsSlashesInSpecialUrlsOnly) {
  expect_cases(kBackslashes);
}

TEST(Url, LowercasesSchemesAndRecognisesNonSpecialSchemes) {
  expect_cases(kSchemes);
}

TEST(Url, SplitsAndPercentEncodesUserinfo) {
  expect_cases(kUserinfo);
}

TEST(Url, ParsesIpv4HostsInEveryNumberFormAndRejectsOutOfRangeParts) {
  expect_cases(kIpv4);
}

TEST(Url, ParsesIpv6HostsAndSerializesThemCompressed) {
  expect_cases(kIpv6);
}

TEST(Url, ConvertsDomainsToAsciiThroughIdna) {
  expect_cases(kDomains);
}

TEST(Url, RejectsForbiddenHostCodePoints) {
  expect_cases(kForbiddenHosts);
}

TEST(Url, PercentEncodesEachComponentWithItsOwnSet) {
  expect_cases(kPercentEncoding);
}

TEST(Url, ResolvesDotSegmentsIncludingPercentEncodedDots) {
  expect_cases(kDotSegments);
}

TEST(Url, ResolvesRelativeReferencesAgainstABase) {
  expect_cases(kRelative);
}

TEST(Url, DropsDefaultPortsAndRejectsInvalidOnes) {
  expect_cases(kPorts);
}

TEST(Url, ParsesFileUrlsWithDriveLetterQuirks) {
  expect_cases(kFiles);
}

TEST(Url, KeepsDataUrlsOpaque) {
  expect_cases(kDataUrls);
}

TEST(Url, ParsesCornerCasesAsBrowsersDo) {
  expect_cases(kQuirks);
}

TEST(Url, HasAtLeastThreeHundredTableCases) {
  size_t total = 0;
  for (const auto* table : kAllTables) total += table->size();
  EXPECT_GE(total, 300u);
}

// parse(href) is href again, with and without the base, and href is ASCII.
TEST(Url, ReparsingTheSerializationGivesTheSameUrl) {
  for (const auto* table : kAllTables) {
    for (const Case& c : *table) {
      if (c.expected == nullptr) continue;
      SCOPED_TRACE(describe(c));
      UrlResult first = parse_exact(c.input, c.base);
      ASSERT_TRUE(first.ok());
      for (char ch : first->href()) EXPECT_LT(static_cast<unsigned char>(ch), 0x80);
      UrlResult second = parse_exact(first->href(), nullptr);
      ASSERT_TRUE(second.ok()) << url_error_message(second.error());
      EXPECT_EQ(second->href(), first->href());
      EXPECT_EQ(*second, *first);
      EXPECT_EQ(second->scheme(), first->scheme());
      EXPECT_EQ(second->username(), first->username());
      EXPECT_EQ(second->password(), first->password());
      EXPECT_EQ(second->host(), first->host());
      EXPECT_EQ(second->host_type(), first->host_type());
      EXPECT_EQ(second->port(), first->port());
      EXPECT_EQ(second->path(), first->path());
      EXPECT_EQ(second->has_query(), first->has_query());
      EXPECT_EQ(second->query(), first->query());
      EXPECT_EQ(second->has_fragment(), first->has_fragment());
      EXPECT_EQ(second->fragment(), first->fragment());
      if (c.base) {
        UrlResult third = parse_exact(first->href(), c.base);
        ASSERT_TRUE(third.ok());
        EXPECT_EQ(third->href(), first->href());
      }
    }
  }
}

// The parser's fast path takes http(s) URLs already in serialized form; these are such URLs and
// the near misses it must leave to the state machine.
const std::vector<Case> kSerializedForms = {
    {"http://example.com/a/b?c=d#e", nullptr, "http://example.com/a/b?c=d#e"},
    {"https://127.0.0.1:8080/1k", nullptr, "https://127.0.0.1:8080/1k"},
    {"http://a_b-c.d/", nullptr, "http://a_b-c.d/"},
    {"http://a/#a#b?c", nullptr, "http://a/#a#b?c"},
    {"http://a/?q=a?b/c", nullptr, "http://a/?q=a?b/c"},
    {"http://a/..x/.well-known/%41", nullptr, "http://a/..x/.well-known/%41"},
    {"http://a:0/", nullptr, "http://a:0/"},
    {"http://Example.COM/X", nullptr, "http://example.com/X"},
    {"http://example.com", nullptr, "http://example.com/"},
    {"http://example.com:8080?q", nullptr, "http://example.com:8080/?q"},
    {"http://example.com#f", nullptr, "http://example.com/#f"},
    {"http://127.0.0.01/", nullptr, "http://127.0.0.1/"},
    {"http://1.2.3/", nullptr, "http://1.2.0.3/"},
    {"http://0x7f.1/", nullptr, "http://127.0.0.1/"},
    {"http://1e3/", nullptr, "http://1e3/"},
    {"http://1.2.3.4.5/", nullptr, nullptr},
    {"http://256.1.1.1/", nullptr, nullptr},
    {"http://a.1/", nullptr, nullptr},
    {"http://a..b/", nullptr, "http://a..b/"},
    {"http://a.b./", nullptr, "http://a.b./"},
    {"http://xn--bcher-kva.example/", nullptr, "http://xn--bcher-kva.example/"},
    {"http://XN--bcher-kva.example/", nullptr, "http://xn--bcher-kva.example/"},
    {"http://a:80/", nullptr, "http://a/"},
    {"https://a:443/", nullptr, "https://a/"},
    {"http://a:080/", nullptr, "http://a/"},
    {"http://a:08080/", nullptr, "http://a:8080/"},
    {"http://a:/", nullptr, "http://a/"},
    {"http://a:65536/", nullptr, nullptr},
    {"http://a:8x/", nullptr, nullptr},
    {"http://user:pw@a/", nullptr, "http://user:pw@a/"},
    {"http://a%41/", nullptr, "http://aa/"},
    {"http://a/./b", nullptr, "http://a/b"},
    {"http://a/b/..", nullptr, "http://a/"},
    {"http://a/b/%2e%2E/c", nullptr, "http://a/c"},
    {"http://a/b/.%2e?q", nullptr, "http://a/?q"},
    {"http://a/b c", nullptr, "http://a/b%20c"},
    {"http://a/{x}^", nullptr, "http://a/%7Bx%7D%5E"},
    {"http://a/?q='x'", nullptr, "http://a/?q=%27x%27"},
    {"http://a/#`x`", nullptr, "http://a/#%60x%60"},
    {"http://a\\b\\c", nullptr, "http://a/b/c"},
    {"http://a/\xC3\xA9", nullptr, "http://a/%C3%A9"},
    {"http://a/?\xC3\xA9", nullptr, "http://a/?%C3%A9"},
    {"http:/a/b", nullptr, "http://a/b"},
    {"http://[::1]:8080/", nullptr, "http://[::1]:8080/"},
    {"//b/c", "http://a/x", "http://b/c"},
    {"http://b/c", "http://a/x", "http://b/c"},
};

TEST(Url, ParsesUrlsInSerializedFormAndTheirNearMisses) {
  expect_cases(kSerializedForms);
}

// The fast path for relative references takes those to a plain path against an http(s) base;
// these are such references and the near misses it must leave to the state machine.
const char* const kLinkBase = "http://example.com:8080/dir/page.html?q#f";
const std::vector<Case> kPlainRelative = {
    {"/p/1.html", kLinkBase, "http://example.com:8080/p/1.html"},
    {"/", kLinkBase, "http://example.com:8080/"},
    {"1.html", kLinkBase, "http://example.com:8080/dir/1.html"},
    {"a/b/?x=1&y#part-2", kLinkBase, "http://example.com:8080/dir/a/b/?x=1&y#part-2"},
    {"/a?#", kLinkBase, "http://example.com:8080/a?#"},
    {"x", "https://a", "https://a/x"},
    {"x", "http://u:p@a/b/c", "http://u:p@a/b/x"},
    {"%2e%2E/x", kLinkBase, "http://example.com:8080/x"},
    {"..x/%2ex/.y", kLinkBase, "http://example.com:8080/dir/..x/%2ex/.y"},
    {"a/./b", kLinkBase, "http://example.com:8080/dir/a/b"},
    {"/a/..", kLinkBase, "http://example.com:8080/"},
    {"../p/./1.html?q=./..#../x", kLinkBase, "http://example.com:8080/p/1.html?q=./..#../x"},
    {"/P/../p/1.html", kLinkBase, "http://example.com:8080/p/1.html"},
    {"a/b/../../../../c", kLinkBase, "http://example.com:8080/c"},
    {".", kLinkBase, "http://example.com:8080/dir/"},
    {"..", kLinkBase, "http://example.com:8080/"},
    {"./", kLinkBase, "http://example.com:8080/dir/"},
    {"a//..//b", kLinkBase, "http://example.com:8080/dir/a//b"},
    {"/%2E./.%2e/%2e", kLinkBase, "http://example.com:8080/"},
    {"x/.../y", kLinkBase, "http://example.com:8080/dir/x/.../y"},
    {"..", "http://a", "http://a/"},
    {"//b/c", kLinkBase, "http://b/c"},
    {"/\\b/c", kLinkBase, "http://b/c"},
    {"\\b", kLinkBase, "http://example.com:8080/b"},
    {"a\\b", kLinkBase, "http://example.com:8080/dir/a/b"},
    {"mailto:x@y", kLinkBase, "mailto:x@y"},
    {"c:d/e", kLinkBase, "c:d/e"},
    {"1:2", kLinkBase, "http://example.com:8080/dir/1:2"},
    {"a/b:c", kLinkBase, "http://example.com:8080/dir/a/b:c"},
    {"a b", kLinkBase, "http://example.com:8080/dir/a%20b"},
    {"/?'x'", kLinkBase, "http://example.com:8080/?%27x%27"},
    {"/#`x`", kLinkBase, "http://example.com:8080/#%60x%60"},
    {"/\xC3\xA9", kLinkBase, "http://example.com:8080/%C3%A9"},
    {"?y", kLinkBase, "http://example.com:8080/dir/page.html?y"},
    {"#g", kLinkBase, "http://example.com:8080/dir/page.html?q#g"},
    {"x", "ftp://a/b", "ftp://a/x"},
    {"x", "file:///C:/", "file:///C:/x"},
    {"x", "foo://a/b/c", "foo://a/b/x"},
};

TEST(Url, ResolvesReferencesToPlainPathsAndTheirNearMisses) {
  expect_cases(kPlainRelative);
}

// The same input in a form no fast path takes, since they take printable ASCII only: with a tab
// after its first byte, which the parser removes before its state machine runs.
std::string without_fast_path(std::string_view input) {
  std::string slow(input.substr(0, 1));
  slow += '\t';
  slow += input.substr(std::min<size_t>(1, input.size()));
  return slow;
}

// The fast paths and the state machine agree on every table case.
TEST(Url, FastPathAgreesWithTheStateMachine) {
  std::vector<const std::vector<Case>*> tables = kAllTables;
  tables.push_back(&kSerializedForms);
  tables.push_back(&kPlainRelative);
  for (const auto* table : tables) {
    for (const Case& c : *table) {
      SCOPED_TRACE(describe(c));
      UrlResult fast = parse_exact(c.input, c.base);
      UrlResult general = parse_exact(without_fast_path(c.input), c.base);
      ASSERT_EQ(fast.ok(), general.ok());
      EXPECT_EQ(fast.error(), general.error());
      if (!fast) continue;
      EXPECT_EQ(fast->href(), general->href());
      EXPECT_EQ(fast->host(), general->host());
      EXPECT_EQ(fast->host_type(), general->host_type());
      EXPECT_EQ(fast->port(), general->port());
      EXPECT_EQ(fast->path(), general->path());
      EXPECT_EQ(fast->has_query(), general->has_query());
      EXPECT_EQ(fast->query(), general->query());
      EXPECT_EQ(fast->has_fragment(), general->has_fragment());
      EXPECT_EQ(fast->fragment(), general->fragment());
      EXPECT_EQ(fast->host_and_port(), general->host_and_port());
      EXPECT_EQ(fast->request_target(), general->request_target());
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Components, errors and helpers.

TEST(Url, ExposesEveryComponentOfAFullUrl) {
  auto url = Url::parse("HTTPS://user:pa ss@Example.COM:8443/p/a?q=1#frag");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->href(), "https://user:pa%20ss@example.com:8443/p/a?q=1#frag");
  EXPECT_EQ(url->scheme(), "https");
  EXPECT_EQ(url->scheme_kind(), UrlScheme::Https);
  EXPECT_TRUE(url->is_special());
  EXPECT_TRUE(url->is_http());
  EXPECT_EQ(url->username(), "user");
  EXPECT_EQ(url->password(), "pa%20ss");
  EXPECT_TRUE(url->has_credentials());
  EXPECT_EQ(url->host(), "example.com");
  EXPECT_EQ(url->host_type(), UrlHostType::Domain);
  EXPECT_EQ(url->port(), 8443);
  EXPECT_EQ(url->effective_port(), 8443);
  EXPECT_EQ(url->path(), "/p/a");
  EXPECT_EQ(url->query(), "q=1");
  EXPECT_EQ(url->fragment(), "frag");
  EXPECT_EQ(url->request_target(), "/p/a?q=1");
  EXPECT_EQ(url->host_port(), "example.com:8443");
  EXPECT_EQ(url->origin(), "https://example.com:8443");
  EXPECT_EQ(url->dedup_key(), "https://user:pa%20ss@example.com:8443/p/a?q=1");
}

TEST(Url, ReportsNoPortWhenTheDefaultIsUsedButConnectsToTheDefault) {
  auto url = Url::parse("http://example.com:80/x");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port(), std::nullopt);
  EXPECT_EQ(url->effective_port(), 80);
  EXPECT_EQ(url->host_port(), "example.com:80");
  EXPECT_EQ(url->origin(), "http://example.com");
  EXPECT_FALSE(url->has_credentials());
  EXPECT_EQ(url->username(), "");
  EXPECT_EQ(url->password(), "");
  auto https = Url::parse("https://example.com/");
  ASSERT_TRUE(https.ok());
  EXPECT_EQ(https->host_port(), "example.com:443");
}

TEST(Url, HostAndPortIsTheHostFieldWithoutUserinfoOrDefaultPort) {
  for (auto [input, expected] : std::vector<std::pair<const char*, const char*>>{
           {"http://user:pw@Example.COM:80/x", "example.com"},
           {"http://example.com:8080/x?q", "example.com:8080"},
           {"https://[::1]:443/", "[::1]"},
           {"https://[::1]:8443", "[::1]:8443"},
           {"http://0x7f.1:81/", "127.0.0.1:81"},
           {"mailto:x@y", ""},
           {"file:///etc/hosts", ""},
       }) {
    auto url = Url::parse(input);
    ASSERT_TRUE(url.ok()) << input;
    EXPECT_EQ(url->host_and_port(), expected) << input;
  }
}

TEST(Url, GivesIpv6HostsWithoutBracketsToTheResolver) {
  auto url = Url::parse("http://[2001:db8::1]:8080/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host(), "[2001:db8::1]");
  EXPECT_EQ(url->hostname_for_connect(), "2001:db8::1");
  EXPECT_EQ(url->host_type(), UrlHostType::Ipv6);
  EXPECT_EQ(url->host_port(), "[2001:db8::1]:8080");
  auto v4 = Url::parse("http://0x7f.1/");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host_type(), UrlHostType::Ipv4);
  EXPECT_EQ(v4->hostname_for_connect(), "127.0.0.1");
}

TEST(Url, TellsAnEmptyQueryAndFragmentFromAbsentOnes) {
  auto empty = Url::parse("http://a/?#");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->has_query());
  EXPECT_TRUE(empty->has_fragment());
  EXPECT_EQ(empty->query(), "");
  EXPECT_EQ(empty->fragment(), "");
  EXPECT_EQ(empty->request_target(), "/?");
  auto absent = Url::parse("http://a/");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_query());
  EXPECT_FALSE(absent->has_fragment());
  EXPECT_EQ(absent->request_target(), "/");
}

TEST(Url, ReportsSchemesTheCrawlerSkips) {
  struct Kind {
    const char* input;
    UrlScheme kind;
    bool special;
    bool opaque;
  };
  for (const Kind& k : std::vector<Kind>{
           {"mailto:a@b.example", UrlScheme::Other, false, true},
           {"javascript:void(0)", UrlScheme::Other, false, true},
           {"tel:+15550100", UrlScheme::Other, false, true},
           {"ftp://a.example/x", UrlScheme::Ftp, true, false},
           {"data:,x", UrlScheme::Data, false, true},
           {"file:///x", UrlScheme::File, true, false},
           {"ws://a/", UrlScheme::Ws, true, false},
           {"wss://a/", UrlScheme::Wss, true, false},
           {"http://a/", UrlScheme::Http, true, false},
       }) {
    SCOPED_TRACE(k.input);
    auto url = Url::parse(k.input);
    ASSERT_TRUE(url.ok());
    EXPECT_EQ(url->scheme_kind(), k.kind);
    EXPECT_EQ(url->is_special(), k.special);
    EXPECT_EQ(url->has_opaque_path(), k.opaque);
    EXPECT_EQ(url->is_http(), k.kind == UrlScheme::Http);
  }
  auto mailto = Url::parse("mailto:someone@example.com?subject=hi");
  ASSERT_TRUE(mailto.ok());
  EXPECT_EQ(mailto->scheme(), "mailto");
  EXPECT_EQ(mailto->path(), "someone@example.com");
  EXPECT_EQ(mailto->query(), "subject=hi");
  EXPECT_FALSE(mailto->has_host());
  EXPECT_EQ(mailto->origin(), "null");
  EXPECT_EQ(mailto->host_port(), "");
}

TEST(Url, ExposesTheHostOfNonSpecialUrls) {
  auto url = Url::parse("git+ssh://git@github.com:22/x/y.git");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->username(), "git");
  EXPECT_EQ(url->host(), "github.com");
  EXPECT_EQ(url->host_type(), UrlHostType::Opaque);
  EXPECT_EQ(url->port(), 22);
  EXPECT_EQ(url->path(), "/x/y.git");
  EXPECT_EQ(url->effective_port(), 22);
  auto dot = Url::parse("web+demo:/.//not-a-host/");
  ASSERT_TRUE(dot.ok());
  EXPECT_EQ(dot->path(), "//not-a-host/");
  EXPECT_FALSE(dot->has_host());
  auto file = Url::parse("file:///etc/hosts");
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->has_host());
  EXPECT_EQ(file->host_type(), UrlHostType::Empty);
  EXPECT_EQ(file->host(), "");
  EXPECT_EQ(file->path(), "/etc/hosts");
}

TEST(Url, NamesTheReasonForEachFailure) {
  struct Failure {
    const char* input;
    UrlError error;
  };
  for (const Failure& f : std::vector<Failure>{
           {"relative/path", UrlError::MissingScheme},
           {"http://", UrlError::HostMissing},
           {"http:", UrlError::HostMissing},
           {"https://user@/", UrlError::HostMissing},
           {"http://a b/", UrlError::InvalidHost},
           {"http://a<b>/", UrlError::InvalidHost},
           {"http://ex%00ample/", UrlError::InvalidHost},
           {"http://xn--/", UrlError::InvalidDomain},
           {"http://\xC2\xAD/", UrlError::InvalidDomain},
           {"http://1.2.3.256/", UrlError::InvalidIpv4},
           {"http://[::1/", UrlError::InvalidIpv6},
           {"http://[1::2::3]/", UrlError::InvalidIpv6},
           {"http://a:8x/", UrlError::InvalidPort},
           {"http://a:65536/", UrlError::PortOutOfRange},
       }) {
    SCOPED_TRACE(f.input);
    auto url = Url::parse(f.input);
    EXPECT_FALSE(url.ok());
    EXPECT_EQ(url.error(), f.error);
    EXPECT_FALSE(url_error_message(url.error()).empty());
  }
  EXPECT_EQ(url_error_message(UrlError::None), "ok");
}

TEST(Url, NormalizesForDedupByDroppingOnlyTheFragment) {
  auto url = Url::parse("http://a/b?c=1&d=2#section");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->dedup_key(), "http://a/b?c=1&d=2");
  Url normal = url->normalized();
  EXPECT_EQ(normal.href(), "http://a/b?c=1&d=2");
  EXPECT_FALSE(normal.has_fragment());
  EXPECT_EQ(normal.query(), "c=1&d=2");
  EXPECT_EQ(normal.dedup_key(), url->dedup_key());
  // Everything a server could tell apart stays: query order, trailing '?', case of the path.
  auto a = Url::parse("http://a/B?x=1&y=2");
  auto b = Url::parse("http://a/B?y=2&x=1");
  auto c = Url::parse("http://a/B?");
  auto d = Url::parse("http://a/b");
  ASSERT_TRUE(a && b && c && d);
  EXPECT_NE(a->dedup_key(), b->dedup_key());
  EXPECT_NE(c->dedup_key(), "http://a/B");
  EXPECT_NE(d->dedup_key(), "http://a/B");
  auto e = Url::parse("http://a/B#");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->dedup_key(), "http://a/B");
}

TEST(Url, MovesOutOfAResultAndCopiesAsAValue) {
  Url url = *Url::parse("HTTP://Example.com/a?b#c");
  Url copy = url;
  EXPECT_EQ(copy, url);
  EXPECT_EQ(copy.href(), "http://example.com/a?b#c");
  EXPECT_EQ(copy.host(), "example.com");
  EXPECT_EQ(copy.query(), "b");
  Url moved = std::move(copy);
  EXPECT_EQ(moved.fragment(), "c");
  EXPECT_EQ(moved.path(), "/a");
  auto other = Url::parse("http://example.com/a?b");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(*other == url);
  EXPECT_EQ(url.normalized(), *other);
  EXPECT_EQ(other->normalized(), *other);
}

TEST(Url, ResolvesEveryLinkOfAPageAgainstOneBase) {
  // The crawler's pattern: one parsed page URL, many hrefs; the base is only read.
  auto page = Url::parse("https://docs.example.org/3/library/index.html?highlight=url#top");
  ASSERT_TRUE(page.ok());
  const std::string before(page->href());
  const std::vector<std::pair<const char*, const char*>> links = {
      {"os.html", "https://docs.example.org/3/library/os.html"},
      {"../tutorial/", "https://docs.example.org/3/tutorial/"},
      {"#module-os", "https://docs.example.org/3/library/index.html?highlight=url#module-os"},
      {"/3/", "https://docs.example.org/3/"},
      {"//cdn.example.org/x.css", "https://cdn.example.org/x.css"},
      {"https://other.example/", "https://other.example/"},
      {"  os.html\n", "https://docs.example.org/3/library/os.html"},
  };
  for (const auto& [href, expected] : links) {
    SCOPED_TRACE(href);
    auto link = Url::parse(href, &*page);
    ASSERT_TRUE(link.ok());
    EXPECT_EQ(link->href(), expected);
  }
  EXPECT_EQ(page->href(), before);
}

TEST(Url, ResolvesAgainstABaseHrefAsACallerWould) {
  // A page at one URL with <base href="/docs/v2/"> resolves its links against the base href,
  // itself resolved against the page URL.
  auto page = Url::parse("https://example.com/guide/intro.html");
  ASSERT_TRUE(page.ok());
  auto base = Url::parse("/docs/v2/", &*page);
  ASSERT_TRUE(base.ok());
  auto link = Url::parse("../api/index.html?x#top", &*base);
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link->href(), "https://example.com/docs/api/index.html?x#top");
}

// A page's links carry the page's encoding into their queries only, as in a browser.
TEST(Url, EncodesQueriesOfSpecialUrlsInTheDocumentEncoding) {
  struct Encoded {
    const char* input;
    const char* encoding;
    const char* expected;
  };
  for (const Encoded& c : std::vector<Encoded>{
           {"http://a/?q=\xC3\xA9", "windows-1252", "http://a/?q=%E9"},
           {"http://a/?q=\xE2\x82\xAC", "windows-1252", "http://a/?q=%80"},
           {"http://a/?q=\xE4\xB8\xAD", "windows-1252", "http://a/?q=%26%2320013%3B"},
           {"http://a/\xC3\xA9?\xC3\xA9#\xC3\xA9", "windows-1252", "http://a/%C3%A9?%E9#%C3%A9"},
           {"https://a/?q=\xE3\x81\x82", "Shift_JIS", "https://a/?q=%82%A0"},
           {"http://a/?\xED\x95\x9C", "EUC-KR", "http://a/?%C7%D1"},
           {"http://a/?\xE3\x81\x82"
            "a",
            "ISO-2022-JP", "http://a/?%1B$B$%22%1B(Ba"},
           {"http://a/?\xED\x95\x9C"
            "a",
            "ISO-2022-JP", "http://a/?%26%2354620%3Ba"},
           {"http://a/?' \xC3\xA9", "windows-1252", "http://a/?%27%20%E9"},
           {"http://a/?a=b", "windows-1252", "http://a/?a=b"},
           {"foo://a/?\xC3\xA9", "windows-1252", "foo://a/?%C3%A9"},
           {"wss://a/?\xC3\xA9", "windows-1252", "wss://a/?%C3%A9"},
           {"http://a/?\xC3\xA9", "UTF-16LE", "http://a/?%C3%A9"},
           {"http://a/?\xC3\xA9", "utf-8", "http://a/?%C3%A9"},
           {"http://a/?\xC3\xA9", "x-no-such-encoding", "http://a/?%C3%A9"},
           {"http://a/?\xFF\xC3\xA9", "windows-1252", "http://a/?%FF%E9"},
       }) {
    SCOPED_TRACE(c.input);
    test::ExactBytes bytes{std::string_view(c.input)};
    auto url = Url::parse(bytes.view(), nullptr, c.encoding);
    ASSERT_TRUE(url.ok());
    EXPECT_EQ(url->href(), c.expected);
  }
  auto page = Url::parse("http://a/b/c?x");
  ASSERT_TRUE(page.ok());
  auto link = Url::parse("d?q=\xC3\xA9", &*page, "windows-1252");
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link->href(), "http://a/b/d?q=%E9");
}

// ---------------------------------------------------------------------------------------------
// Known deviations, pinned so a change is noticed.

// libidn2 adds IDNA2008's rules to UTS #46, so some domains browsers accept fail here: symbols
// and emoji ("http://☃.net/" is xn--n3h.net in a browser), ASCII punctuation beside non-ASCII in
// one label, and labels longer than 63 bytes once encoded. The header lists these deviations.
TEST(Url, RejectsSomeDomainsBrowsersAcceptBecauseLibidn2AddsIdna2008Rules) {
  const std::string long_label = std::string("http://").append(140, 'x').append("\xC3\xBC.com/");
  for (const std::string& input : std::vector<std::string>{
           "http://\xE2\x98\x83.net/", "http://xn--ls8h/", "http://a+\xC3\xBC.example/",
           "http://-\xC3\xA9.example/", long_label}) {
    SCOPED_TRACE(input);
    auto url = Url::parse(input);
    EXPECT_FALSE(url.ok());
    EXPECT_EQ(url.error(), UrlError::InvalidDomain);
  }
  // The same shapes in all-ASCII labels parse as in browsers.
  auto ascii = Url::parse(std::string("http://-a-.b_c.").append(100, 'x').append("/"));
  ASSERT_TRUE(ascii.ok());
  EXPECT_EQ(ascii->host(), std::string("-a-.b_c.").append(100, 'x'));
}

// The standard percent-encodes a legacy-encoded query byte by byte by its encode set, leaving the
// ASCII trail byte of a double-byte character bare; here a character with a non-ASCII byte is
// percent-encoded whole. Characters whose bytes are all ASCII (ISO-2022-JP's) follow the set.
TEST(Url, PercentEncodesALegacyCharacterWholeWhenOneOfItsBytesIsNotAscii) {
  auto url = Url::parse("http://a/?q=\xE6\x97\xA5\xE6\x9C\xAC", nullptr, "Shift_JIS");  // "日本"
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->href(), "http://a/?q=%93%FA%96%7B");  // the standard: "%93%FA%96{"
  auto jis = Url::parse("http://a/?\xE3\x81\x82", nullptr, "ISO-2022-JP");  // "あ"
  ASSERT_TRUE(jis.ok());
  EXPECT_EQ(jis->href(), "http://a/?%1B$B$%22%1B(B");
}

}  // namespace
}  // namespace squall
