// curl_command: shell words, then curl's flags to a pyspider fetch dict.
#include "squall/control/curl_command.h"

#include "squall/core/error.h"
#include "squall/url/ascii.h"

namespace squall {

using nlohmann::json;

std::vector<std::string> split_shell_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      ++i;
    } else if (c == '\'') {
      size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos)
        throw InvalidArgumentError("curl command: a ' quote is not closed");
      word.append(line.substr(i + 1, end - i - 1));
      in_word = true;
      i = end + 1;
    } else if (c == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) throw InvalidArgumentError("curl command: a \" quote is not closed");
        char d = line[i];
        if (d == '"') break;
        // Within double quotes a backslash escapes only these (POSIX).
        if (d == '\\' && i + 1 < line.size() &&
            std::string_view("$`\"\\\n").find(line[i + 1]) != std::string_view::npos) {
          if (line[i + 1] != '\n') word.push_back(line[i + 1]);
          i += 2;
          continue;
        }
        word.push_back(d);
        ++i;
      }
      in_word = true;
      ++i;
    } else if (c == '\\') {
      if (i + 1 < line.size() && line[i + 1] != '\n') {
        word.push_back(line[i + 1]);
        in_word = true;
      }
      i += 2;
    } else {
      word.push_back(c);
      in_word = true;
      ++i;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

namespace {

bool is_any(std::string_view flag, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (flag == n) return true;
  return false;
}

}  // namespace

json task_from_curl(std::string_view command) {
  std::vector<std::string> given = split_shell_words(command);
  if (given.empty() || given[0] != "curl")
    throw InvalidArgumentError("curl command: it must start with 'curl'");
  // Short flags together ("-sSL"), and a short flag with its value ("-XPOST"), one at a time.
  std::vector<std::string> words;
  for (const std::string& w : given) {
    if (w.size() <= 2 || w[0] != '-' || w[1] == '-') {
      words.push_back(w);
      continue;
    }
    for (size_t i = 1; i < w.size(); ++i) {
      words.push_back(std::string("-") + w[i]);
      if (std::string_view("XHdbAe").find(w[i]) != std::string_view::npos) {
        if (i + 1 < w.size()) words.push_back(w.substr(i + 1));
        break;
      }
    }
  }
  json fetch = json::object();
  json headers = json::object();
  std::string url, method, data, cookies;
  bool has_data = false, get = false;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= words.size())
        throw InvalidArgumentError("curl command: " + w + " needs a value");
      return words[++i];
    };
    if (w.empty() || w[0] != '-' || w == "-") {
      if (!url.empty())
        throw InvalidArgumentError("curl command: one URL only, not both " + url + " and " + w);
      url = w;
    } else if (w == "--url") {
      url = value();
    } else if (is_any(w, {"-X", "--request"})) {
      method = value();
    } else if (is_any(w, {"-H", "--header"})) {
      const std::string& h = value();
      size_t colon = h.find(':');
      if (colon == std::string::npos || colon == 0)
        throw InvalidArgumentError("curl command: header '" + h + "' has no 'Name:'");
      std::string name = h.substr(0, colon);
      std::string_view v(h);
      v.remove_prefix(colon + 1);
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      if (iequals(name, "cookie"))
        cookies = std::string(v);
      else if (iequals(name, "user-agent"))
        fetch["user_agent"] = std::string(v);
      else
        headers[name] = std::string(v);
    } else if (is_any(w, {"-d", "--data", "--data-raw", "--data-binary", "--data-ascii"})) {
      const std::string& d = value();
      if (has_data) data += '&';
      data += d;
      has_data = true;
    } else if (is_any(w, {"-b", "--cookie"})) {
      cookies = value();
    } else if (is_any(w, {"-A", "--user-agent"})) {
      fetch["user_agent"] = value();
    } else if (is_any(w, {"-e", "--referer"})) {
      headers["Referer"] = value();
    } else if (w == "--compressed") {
      fetch["use_gzip"] = true;
    } else if (is_any(w, {"-k", "--insecure"})) {
      fetch["validate_cert"] = false;
    } else if (is_any(w, {"-L", "--location"})) {
      fetch["allow_redirects"] = true;
    } else if (is_any(w, {"-I", "--head"})) {
      method = "HEAD";
    } else if (is_any(w, {"-G", "--get"})) {
      get = true;
    } else if (is_any(w, {"-s", "--silent", "-S", "--show-error", "-v", "--verbose", "-i",
                          "--include"})) {
      // How curl reports, which a fetch result has no use for.
    } else {
      throw InvalidArgumentError("curl command: " + w +
                                 " is not a flag the fetch API takes (it takes -X, -H, -d, -b, "
                                 "-A, -e, --compressed, -k, -L, -I, -G)");
    }
  }
  if (url.empty()) throw InvalidArgumentError("curl command: no URL");
  if (has_data && get) {
    url += (url.find('?') == std::string::npos ? '?' : '&') + data;
    has_data = false;
  }
  if (has_data) {
    fetch["data"] = data;
    if (method.empty()) method = "POST";
    if (!headers.contains("Content-Type"))
      headers["Content-Type"] = "application/x-www-form-urlencoded";
  }
  if (!method.empty()) fetch["method"] = method;
  // curl follows redirects only with -L; the fetcher follows them unless told not to.
  if (!fetch.contains("allow_redirects")) fetch["allow_redirects"] = false;
  if (!headers.empty()) fetch["headers"] = headers;
  if (!cookies.empty()) {
    json jar = json::object();
    std::string_view rest(cookies);
    while (!rest.empty()) {
      size_t semi = rest.find(';');
      std::string_view pair = rest.substr(0, semi);
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
      size_t eq = pair.find('=');
      if (pair.empty() || eq == std::string_view::npos || eq == 0) continue;
      jar[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
    }
    if (!jar.empty()) fetch["cookies"] = jar;
  }
  return json{{"url", url}, {"fetch", fetch}};
}

}  // namespace squall
