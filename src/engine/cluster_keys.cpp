// Key names under a crawl's namespace.
#include "squall/engine/cluster_keys.h"

#include "squall/core/error.h"

namespace squall {

std::string cluster_prefix(std::string_view ns) {
  if (ns.empty()) {
    throw InvalidArgumentError("the cluster namespace is empty; leave it out for \"" +
                               std::string(default_cluster_namespace) + "\"");
  }
  for (char c : ns) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || c == ':') {
      throw InvalidArgumentError("the cluster namespace \"" + std::string(ns) +
                                 "\" has a space, a control character or a ':'; use letters, "
                                 "digits, '-', '_' or '.'");
    }
  }
  return "squall:" + std::string(ns) + ":";
}

std::string cluster_key(std::string_view ns, std::string_view name) {
  return cluster_prefix(ns) + std::string(name);
}

}  // namespace squall
