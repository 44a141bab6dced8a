#pragma once
// Writes files that Python's torch.load() reads: a zip archive (torch's own writer) holding a
// pickle (protocol 2) whose tensors live in separate storage records, as torch.save lays them
// out. Small and explicit: the values a checkpoint needs (None, bool, int, float, str, tuple,
// list, dict, tensors) plus the few opcodes that name a Python callable and call
// it (GLOBAL, REDUCE) and the memo, so that a value built once can be used again.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace stave::train {

class PickleWriter {
 public:
  PickleWriter();

  // Values: each pushes one object onto the unpickler's stack.
  void none();
  void boolean(bool v);
  void integer(int64_t v);
  void real(double v);
  void string(const std::string& utf8);
  /// A CPU copy of `t` (contiguous) in a storage record of its own, rebuilt as
  /// torch._utils._rebuild_tensor_v2 does for torch.save. Float, double, half, bfloat16,
  /// int64, int32, uint8 and bool tensors.
  void tensor(const torch::Tensor& t);
  /// `module.name`, e.g. global("collections", "OrderedDict").
  void global(const std::string& module, const std::string& name);

  // Containers, written with the opcodes Python's own pickler uses (so torch.load's
  // weights-only reader takes them too): begin, push the items (key, value pairs for a dict),
  // end.
  void beginList();
  void endList();
  void beginDict();
  void endDict();
  /// A tuple: mark(), the items, tupleFromMark().
  void mark();
  void tupleFromMark();
  /// An empty collections.OrderedDict (what torch.save writes for a tensor's backward hooks).
  void emptyOrderedDict();

  /// Calls the callable below the argument tuple on top: callable(*args).
  void reduce();
  /// Drops the top of the stack.
  void pop();
  /// Remembers the top of the stack (it stays there) and returns its memo index.
  uint32_t memoize();
  /// Pushes a remembered object again.
  void memoGet(uint32_t index);

  /// The finished archive (STOP written): bytes for a .pt file.
  std::string archive();

 private:
  void op(uint8_t code);
  void raw(const void* data, size_t n);
  void u32(uint32_t v);
  std::string m_pickle;
  std::vector<std::pair<std::string, std::string>> m_storages;  // key, bytes
  uint32_t m_memo = 0;
};

}  // namespace stave::train
