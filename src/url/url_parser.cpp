// The WHATWG basic URL parser's state machine, writing the serialization straight into the Url.
#include <algorithm>
#include <utility>

#include "url_internal.h"

namespace squall::detail {

namespace {

// "C:" or "C|": a Windows drive letter; normalized means the second byte is ':'.
bool is_drive_letter(std::string_view s, bool normalized) {
  return s.size() == 2 && is_ascii_alpha(s[0]) && (s[1] == ':' || (!normalized && s[1] == '|'));
}
bool starts_with_drive_letter(std::string_view s) {
  if (s.size() < 2 || !is_drive_letter(s.substr(0, 2), false)) return false;
  if (s.size() == 2) return true;
  char c = s[2];
  return c == '/' || c == '\\' || c == '?' || c == '#';
}

bool is_single_dot(std::string_view s) {
  return s == "." || iequals(s, "%2e");
}
bool is_double_dot(std::string_view s) {
  return s == ".." || iequals(s, ".%2e") || iequals(s, "%2e.") || iequals(s, "%2e%2e");
}

}  // namespace

void UrlParser::copy_base_authority() {
  const Url& b = *base_;
  uint32_t end = b.path_start_ - (b.dot_slash_ ? 2 : 0);
  out().assign(b.href_.view().substr(0, end));
  url_.scheme_end_ = b.scheme_end_;
  url_.username_end_ = b.username_end_;
  url_.host_start_ = b.host_start_;
  url_.host_end_ = b.host_end_;
  url_.port_ = b.port_;
  url_.has_port_ = b.has_port_;
  url_.special_ = b.special_;
  url_.scheme_kind_ = b.scheme_kind_;
  url_.host_type_ = b.host_type_;
}

void UrlParser::copy_base_query() {
  if (!base_->has_query()) return;
  url_.query_start_ = pos();
  out() += base_->slice(base_->query_start_, base_->fragment_end());
}

void UrlParser::begin_path() {
  url_.path_start_ = pos();
  path_begun_ = true;
}

// Removes the last path segment, except a lone normalized drive letter of a file URL.
void UrlParser::shorten_path() {
  std::string_view path = out().view().substr(url_.path_start_);
  if (url_.scheme_kind_ == UrlScheme::File && path.size() == 3 &&
      is_drive_letter(path.substr(1), true))
    return;
  size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) out().truncate(url_.path_start_ + slash);
}

UrlError UrlParser::run() {
  out().reserve(in_.size() + (base_ ? base_->href_.size() : 0) + 8);
  while (state_ != State::Done) {
    if (state_ >= State::PathStart && !path_begun_) begin_path();
    int c = at(p_);
    switch (state_) {
      case State::SchemeStart:
        state_ = is_ascii_alpha(c) ? State::Scheme : State::NoScheme;
        break;

      case State::Scheme: {
        size_t i = 0;
        while (i < in_.size() && (is_ascii_alpha(at(i)) || is_ascii_digit(at(i)) || at(i) == '+' ||
                                  at(i) == '-' || at(i) == '.'))
          ++i;
        if (at(i) != ':') {
          state_ = State::NoScheme;
          break;
        }
        for (size_t k = 0; k < i; ++k) out().push_back(ascii_lower(in_[k]));
        url_.scheme_end_ = pos();
        out().push_back(':');
        const SchemeInfo& info = scheme_info(url_.scheme());
        set_scheme(info);
        p_ = i + 1;
        if (info.kind == UrlScheme::File) {
          state_ = State::File;
        } else if (info.special && base_ && base_->scheme() == url_.scheme()) {
          state_ = State::SpecialRelativeOrAuthority;
        } else if (info.special) {
          state_ = State::SpecialAuthoritySlashes;
        } else if (at(p_) == '/') {
          state_ = State::PathOrAuthority;
          ++p_;
        } else {
          no_host();
          url_.opaque_path_ = true;
          state_ = State::OpaquePath;
        }
        break;
      }

      case State::NoScheme:
        if (!base_ || (base_->opaque_path_ && c != '#')) return UrlError::MissingScheme;
        if (base_->opaque_path_) {
          out().assign(base_->href_.view().substr(0, base_->fragment_end()));
          url_.scheme_end_ = base_->scheme_end_;
          url_.special_ = base_->special_;
          url_.scheme_kind_ = base_->scheme_kind_;
          url_.opaque_path_ = true;
          url_.username_end_ = url_.host_start_ = url_.host_end_ = base_->host_start_;
          url_.path_start_ = base_->path_start_;
          url_.query_start_ = base_->query_start_;
          path_begun_ = true;
          ++p_;
          state_ = State::Fragment;
        } else if (base_->scheme_kind_ != UrlScheme::File) {
          state_ = State::Relative;
        } else {
          state_ = State::File;
        }
        break;

      case State::SpecialRelativeOrAuthority:
        if (c == '/' && at(p_ + 1) == '/') {
          state_ = State::SpecialAuthorityIgnoreSlashes;
          p_ += 2;
        } else {
          state_ = State::Relative;
        }
        break;

      case State::PathOrAuthority:
        if (c == '/') {
          state_ = State::Authority;
          ++p_;
        } else {
          no_host();
          state_ = State::Path;
        }
        break;

      case State::Relative:
        copy_base_authority();
        if (is_slash(c)) {
          state_ = State::RelativeSlash;
          ++p_;
          break;
        }
        begin_path();
        copy_base_path();
        if (c == '?') {
          state_ = State::Query;
          ++p_;
        } else if (c == '#') {
          copy_base_query();
          state_ = State::Fragment;
          ++p_;
        } else if (c != kEof) {
          shorten_path();
          state_ = State::Path;
        } else {
          copy_base_query();
          state_ = State::Done;
        }
        break;

      case State::RelativeSlash:
        // The base authority is already copied; an authority in the input replaces it.
        if (is_slash(c)) {
          out().truncate(url_.scheme_end_ + 1);
          state_ = url_.special_ ? State::SpecialAuthorityIgnoreSlashes : State::Authority;
          ++p_;
        } else {
          state_ = State::Path;
        }
        break;

      case State::SpecialAuthoritySlashes:
        if (c == '/' && at(p_ + 1) == '/') p_ += 2;
        state_ = State::SpecialAuthorityIgnoreSlashes;
        break;

      case State::SpecialAuthorityIgnoreSlashes:
        while (at(p_) == '/' || at(p_) == '\\') ++p_;
        state_ = State::Authority;
        break;

      case State::Authority: {
        size_t end = p_;
        while (end < in_.size()) {
          int e = at(end);
          if (e == '/' || e == '?' || e == '#' || (url_.special_ && e == '\\')) break;
          ++end;
        }
        if (UrlError error = parse_authority(end); error != UrlError::None) return error;
        p_ = end;
        state_ = State::PathStart;
        break;
      }

      case State::File:
        if (url_.scheme_end_ == 0) {
          out().assign("file:");
          url_.scheme_end_ = 4;
          set_scheme(scheme_info(UrlScheme::File));
        }
        out() += "//";
        url_.username_end_ = url_.host_start_ = url_.host_end_ = pos();
        url_.host_type_ = UrlHostType::Empty;
        if (c == '/' || c == '\\') {
          state_ = State::FileSlash;
          ++p_;
        } else if (base_ && base_->scheme_kind_ == UrlScheme::File) {
          copy_base_authority();
          begin_path();
          copy_base_path();
          if (c == '?') {
            state_ = State::Query;
            ++p_;
          } else if (c == '#') {
            copy_base_query();
            state_ = State::Fragment;
            ++p_;
          } else if (c != kEof) {
            if (!starts_with_drive_letter(in_.substr(p_))) {
              shorten_path();
            } else {
              out().truncate(url_.path_start_);
            }
            state_ = State::Path;
          } else {
            copy_base_query();
            state_ = State::Done;
          }
        } else {
          state_ = State::Path;
        }
        break;

      case State::FileSlash:
        if (c == '/' || c == '\\') {
          state_ = State::FileHost;
          ++p_;
          break;
        }
        if (base_ && base_->scheme_kind_ == UrlScheme::File) {
          copy_base_authority();
          begin_path();
          std::string_view base_path = base_->path();
          if (!starts_with_drive_letter(in_.substr(p_)) && base_path.size() >= 3 &&
              is_drive_letter(base_path.substr(1, 2), true) &&
              (base_path.size() == 3 || base_path[3] == '/'))
            out() += base_path.substr(0, 3);
        }
        state_ = State::Path;
        break;

      case State::FileHost: {
        size_t end = p_;
        while (end < in_.size()) {
          int e = at(end);
          if (e == '/' || e == '\\' || e == '?' || e == '#') break;
          ++end;
        }
        std::string_view buffer = in_.substr(p_, end - p_);
        if (is_drive_letter(buffer, false)) {
          state_ = State::Path;  // the buffer is read again as the first path segment
          break;
        }
        if (!buffer.empty()) {
          if (UrlError error = parse_host(buffer); error != UrlError::None) return error;
          if (url_.host() == "localhost") {
            out().truncate(url_.host_start_);
            url_.host_end_ = url_.host_start_;
            url_.host_type_ = UrlHostType::Empty;
          }
        }
        p_ = end;
        state_ = State::PathStart;
        break;
      }

      case State::PathStart:
        if (url_.special_) {
          state_ = State::Path;
          if (c == '/' || c == '\\') ++p_;
        } else if (c == '?') {
          state_ = State::Query;
          ++p_;
        } else if (c == '#') {
          state_ = State::Fragment;
          ++p_;
        } else if (c != kEof) {
          state_ = State::Path;
          if (c == '/') ++p_;
        } else {
          state_ = State::Done;
        }
        break;

      case State::Path:
        parse_path();
        break;

      case State::OpaquePath:
        parse_opaque_path();
        break;

      case State::Query:
        parse_query();
        break;

      case State::Fragment:
        parse_fragment();
        break;

      case State::Done:
        break;
    }
  }
  finish();
  return UrlError::None;
}

// The authority state and the host and port states it hands over to, on in_[p_, end).
UrlError UrlParser::parse_authority(size_t end) {
  std::string_view authority = in_.substr(p_, end - p_);
  // A relative reference's authority replaces all of the base's, port included.
  out().truncate(url_.scheme_end_ + 1);
  url_.has_port_ = false;
  url_.port_ = 0;
  out() += "//";
  uint32_t username_start = pos();
  // Every '@' but the last belongs to the userinfo (and is encoded there); the first ':' of the
  // userinfo separates username from password.
  size_t at_sign = authority.rfind('@');
  std::string_view host_port = authority;
  if (at_sign != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at_sign);
    size_t colon = userinfo.find(':');
    append_encoded(out(), userinfo.substr(0, colon), kUserinfoSet);
    url_.username_end_ = pos();
    if (colon != std::string_view::npos && colon + 1 < userinfo.size()) {
      out().push_back(':');
      append_encoded(out(), userinfo.substr(colon + 1), kUserinfoSet);
    }
    if (pos() != username_start) out().push_back('@');
    host_port = authority.substr(at_sign + 1);
    if (host_port.empty()) return UrlError::HostMissing;
  } else {
    url_.username_end_ = username_start;
  }
  url_.host_start_ = pos();

  bool in_brackets = false;
  size_t colon = std::string_view::npos;
  for (size_t i = 0; i < host_port.size(); ++i) {
    char c = host_port[i];
    if (c == ':' && !in_brackets) {
      colon = i;
      break;
    }
    if (c == '[') in_brackets = true;
    if (c == ']') in_brackets = false;
  }
  std::string_view host = host_port.substr(0, colon);
  if (host.empty() && (url_.special_ || colon != std::string_view::npos))
    return UrlError::HostMissing;
  if (UrlError error = parse_host(host); error != UrlError::None) return error;
  if (colon != std::string_view::npos) return parse_port(host_port.substr(colon + 1));
  return UrlError::None;
}

// The host parser; writes the serialized host at the end of the href and sets host_end_.
UrlError UrlParser::parse_host(std::string_view host) {
  if (UrlError error = detail::parse_host(host, url_.special_, out(), url_.host_type_);
      error != UrlError::None)
    return error;
  url_.host_end_ = pos();
  return UrlError::None;
}

UrlError UrlParser::parse_port(std::string_view port) {
  uint32_t value = 0;
  for (char c : port) {
    if (!is_ascii_digit(c)) return UrlError::InvalidPort;
    value = value * 10 + (c - '0');
    if (value > 65535) value = 65536;
  }
  if (port.empty()) return UrlError::None;
  if (value > 65535) return UrlError::PortOutOfRange;
  if (static_cast<int>(value) == scheme_info(url_.scheme_kind_).default_port) return UrlError::None;
  url_.port_ = static_cast<uint16_t>(value);
  url_.has_port_ = true;
  out().push_back(':');
  append_decimal(out(), value);
  return UrlError::None;
}

// The path state: segments are written as '/'-prefixed runs; dot segments are undone in place.
void UrlParser::parse_path() {
  uint32_t segment = out().size();
  out().push_back('/');
  while (true) {
    int c = at(p_);
    bool slash = is_slash(c);
    if (c == kEof || slash || c == '?' || c == '#') {
      finish_segment(segment, slash);
      ++p_;
      if (slash) {
        segment = out().size();
        out().push_back('/');
        continue;
      }
      state_ = c == '?' ? State::Query : c == '#' ? State::Fragment : State::Done;
      return;
    }
    size_t run = p_;
    while (run < in_.size()) {
      int d = at(run);
      if (d == '/' || d == '?' || d == '#' || (d == '\\' && url_.special_)) break;
      ++run;
    }
    append_encoded(out(), in_.substr(p_, run - p_), kPathSet);
    p_ = run;
  }
}

void UrlParser::finish_segment(uint32_t segment, bool slash) {
  std::string_view text = out().view().substr(segment + 1);
  if (is_double_dot(text)) {
    out().truncate(segment);
    shorten_path();
    if (!slash) out().push_back('/');
  } else if (is_single_dot(text)) {
    out().truncate(segment);
    if (!slash) out().push_back('/');
  } else if (url_.scheme_kind_ == UrlScheme::File && segment == url_.path_start_ &&
             is_drive_letter(text, false)) {
    out()[segment + 2] = ':';
  }
}

void UrlParser::parse_opaque_path() {
  while (true) {
    int c = at(p_);
    if (c == '?' || c == '#' || c == kEof) {
      ++p_;
      state_ = c == '?' ? State::Query : c == '#' ? State::Fragment : State::Done;
      return;
    }
    if (c == ' ') {
      int next = at(p_ + 1);
      out() += next == '?' || next == '#' ? "%20" : " ";
      ++p_;
      continue;
    }
    size_t run = p_;
    while (run < in_.size() && in_[run] != '?' && in_[run] != '#' && in_[run] != ' ') ++run;
    append_encoded(out(), in_.substr(p_, run - p_), kC0Set);
    p_ = run;
  }
}

void UrlParser::parse_query() {
  url_.query_start_ = pos();
  out().push_back('?');
  size_t hash = in_.find('#', p_);
  std::string_view query = in_.substr(p_, hash == std::string_view::npos ? in_.npos : hash - p_);
  const EncodeSet& set = url_.special_ ? kSpecialQuerySet : kQuerySet;
  bool legacy = !query_encoding_.empty() && url_.special_ && url_.scheme_kind_ != UrlScheme::Ws &&
                url_.scheme_kind_ != UrlScheme::Wss &&
                std::any_of(query.begin(), query.end(),
                            [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  if (!legacy || !append_encoded_in(out(), query, query_encoding_, set))
    append_encoded(out(), query, set);
  if (hash == std::string_view::npos) {
    state_ = State::Done;
  } else {
    p_ = hash + 1;
    state_ = State::Fragment;
  }
}

void UrlParser::parse_fragment() {
  url_.fragment_start_ = pos();
  out().push_back('#');
  append_encoded(out(), in_.substr(std::min(p_, in_.size())), kFragmentSet);
  state_ = State::Done;
}

// A URL without a host whose path starts with an empty segment serializes with "/." before the
// path, or its path would read as an authority.
void UrlParser::finish() {
  if (url_.host_type_ != UrlHostType::None || url_.opaque_path_) return;
  std::string_view path = url_.path();
  if (path.size() < 2 || path[0] != '/' || path[1] != '/') return;
  out().insert(url_.path_start_, "/.");
  url_.path_start_ += 2;
  url_.dot_slash_ = true;
  if (url_.query_start_ != Url::kNone) url_.query_start_ += 2;
  if (url_.fragment_start_ != Url::kNone) url_.fragment_start_ += 2;
}

}  // namespace squall::detail
