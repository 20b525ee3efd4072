// A doubly linked list whose nodes live in their owners (often coroutine frames): O(1) removal,
// no allocation. A node derives from ListHook<Node> and may sit in at most one list at a time.
#pragma once

#include <cstddef>

namespace squall::detail {

template <class Node>
class IntrusiveList;

template <class Node>
class ListHook {
 public:
  bool linked() const noexcept { return list_ != nullptr; }

 protected:
  ListHook() = default;
  ListHook(const ListHook&) = delete;
  ListHook& operator=(const ListHook&) = delete;
  ~ListHook() { unlink(); }

  // Leaves whichever list holds this node; no effect when unlinked.
  void unlink() noexcept {
    if (list_) list_->remove(static_cast<Node&>(*this));
  }

 private:
  friend class IntrusiveList<Node>;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  IntrusiveList<Node>* list_ = nullptr;
};

template <class Node>
class IntrusiveList {
 public:
  IntrusiveList() = default;
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;
  // Nodes still linked are detached (their owners outlive the list in that case).
  ~IntrusiveList() {
    while (head_) remove(*head_);
  }

  bool empty() const noexcept { return head_ == nullptr; }
  size_t size() const noexcept { return size_; }
  Node* front() const noexcept { return head_; }
  static Node* next(const Node& node) noexcept { return hook(node).next_; }

  void push_back(Node& node) noexcept {
    auto& h = hook(node);
    h.list_ = this;
    h.prev_ = tail_;
    h.next_ = nullptr;
    if (tail_) {
      hook(*tail_).next_ = &node;
    } else {
      head_ = &node;
    }
    tail_ = &node;
    ++size_;
  }

  Node* pop_front() noexcept {
    Node* node = head_;
    if (node) remove(*node);
    return node;
  }

  void remove(Node& node) noexcept {
    auto& h = hook(node);
    if (h.list_ != this) return;
    if (h.prev_) {
      hook(*h.prev_).next_ = h.next_;
    } else {
      head_ = h.next_;
    }
    if (h.next_) {
      hook(*h.next_).prev_ = h.prev_;
    } else {
      tail_ = h.prev_;
    }
    h.prev_ = h.next_ = nullptr;
    h.list_ = nullptr;
    --size_;
  }

 private:
  static ListHook<Node>& hook(Node& n) noexcept { return static_cast<ListHook<Node>&>(n); }
  static const ListHook<Node>& hook(const Node& n) noexcept {
    return static_cast<const ListHook<Node>&>(n);
  }

  Node* head_ = nullptr;
  Node* tail_ = nullptr;
  size_t size_ = 0;
};

}  // namespace squall::detail
