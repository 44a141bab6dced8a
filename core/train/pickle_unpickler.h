#pragma once
// The restricted unpickler behind readPickle (pickle_reader.h), private to core/train: the opcode
// loop (pickle_reader.cpp), the text decoders and the finished graph's checks (pickle_values.cpp),
// and the constructors of data it allows for REDUCE, NEWOBJ and persistent ids
// (pickle_constructors.cpp).

#include <charconv>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/train/pickle_reader.h"

namespace stave::train {

/// A refusal inside the unpickler; readPickle turns it into an Error.
struct PickleRefusal {
  size_t offset;
  std::string message;
};

/// The restricted unpickler. Every failure throws a PickleRefusal (offset + message); nothing
/// it reads is ever called.
class Unpickler {
 public:
  using Kind = PickleValue::Kind;

  Unpickler(std::string_view bytes, const PickleLimits& limits)
      : m_in(bytes), m_limits(limits), m_values(std::make_shared<std::deque<PickleValue>>()) {}

  PickleDocument run();

 private:
  // pickle_values.cpp: text decoders
  /// A little-endian two's-complement integer of n bytes (LONG1, LONG4).
  int64_t longBytes(uint64_t n);
  int64_t decimal(std::string_view s);
  /// Protocol 0's STRING: a Python repr in quotes.
  std::string quoted(std::string_view s);
  /// Protocol 0's UNICODE: raw-unicode-escape (\uXXXX, \UXXXXXXXX), other bytes as latin-1.
  std::string rawUnicode(std::string_view s);

  // pickle_reader.cpp: the opcode loop
  /// Runs one opcode; returns the result at STOP, else nullptr.
  PickleValue* step();
  void addPairs(PickleValue* dict, const std::vector<PickleValue*>& items);
  PickleValue* global(std::string module, std::string name);

  // pickle_values.cpp: the finished graph
  /// Walks everything reachable from `root` once, without recursion: refuses a cycle and a
  /// nesting deeper than the limit; keeps the last value of a dict key written twice.
  void checkGraph(PickleValue* root);
  static void dedupeKeys(PickleValue* d);

  // pickle_constructors.cpp
  /// NEWOBJ / INST / OBJ / copyreg: a record of an allowed class.
  PickleValue* newObject(const char* how, const PickleValue* cls,
                         const std::vector<PickleValue*>& args);
  [[noreturn]] void refuseCall(const PickleValue* callable, const std::string& why);
  /// REDUCE: callable(*args), for the data constructors on the list only.
  PickleValue* reduce(PickleValue* callable, PickleValue* argsValue);
  /// The items of a list, tuple or set argument.
  std::vector<PickleValue*> sequence(const PickleValue* v);
  static bool truthy(const PickleValue* v);
  PickleValue* latin1Bytes(const std::string& utf8);
  /// numpy.core.multiarray.scalar(dtype, bytes): a number when the dtype is a plain
  /// little-endian number; else a record.
  PickleValue* numpyScalar(const PickleValue* callable, const std::vector<PickleValue*>& args);
  PickleValue* real(double d);
  /// BINPERSID: ('storage', torch.<Type>Storage, key, location, numel).
  PickleValue* persistentLoad(const PickleValue* pid);
  /// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, meta]).
  PickleValue* rebuildTensor(const std::vector<PickleValue*>& args);

  [[noreturn]] void fail(const std::string& message) const { throw PickleRefusal{m_op, message}; }

  // --- Reading bytes -----------------------------------------------------------------------
  const char* take(uint64_t n) {
    if (n > m_in.size() - m_pos)
      fail("truncated: " + std::to_string(n) + " bytes needed at byte " + std::to_string(m_pos) +
           ", but the pickle ends at byte " + std::to_string(m_in.size()));
    const char* p = m_in.data() + m_pos;
    m_pos += size_t(n);
    return p;
  }
  uint8_t u8() { return uint8_t(*take(1)); }
  uint64_t le(int n) {
    const auto* p = reinterpret_cast<const uint8_t*>(take(n));
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  }
  std::string_view line() {
    const size_t end = m_in.find('\n', m_pos);
    if (end == std::string_view::npos)
      fail("truncated: a line that never ends (no newline before the end of the pickle)");
    std::string_view s = m_in.substr(m_pos, end - m_pos);
    m_pos = end + 1;
    return s;
  }
  void countText(uint64_t n) {
    m_textBytes += n;
    if (m_textBytes > m_limits.maxTextBytes)
      fail("strings and bytes of more than " + std::to_string(m_limits.maxTextBytes) +
           " bytes in all (the limit)");
  }

  // --- Values, stack, marks, memo ----------------------------------------------------------
  PickleValue* make(Kind k) {
    if (m_values->size() >= m_limits.maxValues)
      fail("more than " + std::to_string(m_limits.maxValues) + " values (the limit)");
    PickleValue& v = m_values->emplace_back();
    v.kind = k;
    v.offset = m_op;
    v.id = m_values->size() - 1;
    return &v;
  }
  void push(PickleValue* v) {
    if (m_stack.size() >= m_limits.maxStack)
      fail("more than " + std::to_string(m_limits.maxStack) + " entries on the stack (the limit)");
    m_stack.push_back(v);
  }
  size_t markBase() const { return m_marks.empty() ? 0 : m_marks.back(); }
  PickleValue* pop() {
    if (m_stack.size() <= markBase())
      fail("stack underflow (an opcode takes a value that is not there)");
    PickleValue* v = m_stack.back();
    m_stack.pop_back();
    return v;
  }
  PickleValue* top() {
    if (m_stack.size() <= markBase())
      fail("stack underflow (an opcode takes a value that is not there)");
    return m_stack.back();
  }
  std::vector<PickleValue*> popMark() {
    if (m_marks.empty()) fail("no MARK to take the items from");
    const size_t base = m_marks.back();
    m_marks.pop_back();
    std::vector<PickleValue*> items(m_stack.begin() + std::ptrdiff_t(base), m_stack.end());
    m_stack.resize(base);
    return items;
  }
  void memoPut(uint64_t index) {
    PickleValue* v = top();
    auto it = m_memo.find(index);
    if (it == m_memo.end() && m_memo.size() >= m_limits.maxMemo)
      fail("more than " + std::to_string(m_limits.maxMemo) + " memo entries (the limit)");
    m_memo[index] = v;
  }
  void memoGet(uint64_t index) {
    auto it = m_memo.find(index);
    if (it == m_memo.end())
      fail("memo get of index " + std::to_string(index) + ", which was never stored");
    push(it->second);
  }
  static uint64_t parseIndex(std::string_view s, const Unpickler& u) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) u.fail("a memo index that is not a number");
    return v;
  }

  PickleValue* integer(int64_t v) {
    PickleValue* x = make(Kind::Int);
    x->integer = v;
    return x;
  }
  PickleValue* text(Kind k, const char* p, size_t n) {
    countText(n);
    PickleValue* x = make(k);
    x->text.assign(p, n);
    return x;
  }

  std::string_view m_in;
  const PickleLimits& m_limits;
  std::shared_ptr<std::deque<PickleValue>> m_values;
  size_t m_pos = 0;
  size_t m_op = 0;  // where the opcode being run starts
  std::vector<PickleValue*> m_stack;
  std::vector<size_t> m_marks;
  std::unordered_map<uint64_t, PickleValue*> m_memo;
  size_t m_textBytes = 0;
  std::vector<PickleStorage> m_storages;
  std::unordered_map<std::string, size_t> m_storageIndex;
};

}  // namespace stave::train
