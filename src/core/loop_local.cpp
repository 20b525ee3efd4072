// loop_local: the objects of every loop, in one map that is never destroyed (a loop may be
// destroyed after its thread's thread_local objects, or after static ones).
#include "squall/core/loop_local.h"

#include <mutex>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace squall::detail {

namespace {

struct Objects {
  std::vector<std::pair<std::type_index, std::unique_ptr<LoopLocalBase>>> list;  // oldest first
};

struct Registry {
  std::mutex mutex;
  std::unordered_map<const Loop*, Objects> loops;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: loops may outlive static destruction
  return *r;
}

}  // namespace

LoopLocalBase* find_loop_local(const Loop& loop, const std::type_info& type) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.loops.find(&loop);
  if (it == r.loops.end()) return nullptr;
  for (auto& [key, object] : it->second.list)
    if (key == std::type_index(type)) return object.get();
  return nullptr;
}

LoopLocalBase* add_loop_local(const Loop& loop, const std::type_info& type,
                              std::unique_ptr<LoopLocalBase> object) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  LoopLocalBase* raw = object.get();
  r.loops[&loop].list.emplace_back(std::type_index(type), std::move(object));
  return raw;
}

void destroy_loop_locals(const Loop& loop) noexcept {
  Objects objects;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.loops.find(&loop);
    if (it == r.loops.end()) return;
    objects = std::move(it->second);
    r.loops.erase(it);
  }
  // Outside the lock: a destructor may use loop_local for another loop. Newest first.
  while (!objects.list.empty()) objects.list.pop_back();
}

}  // namespace squall::detail
