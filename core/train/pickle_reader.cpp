#include "core/train/pickle_reader.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <c10/util/Half.h>

namespace stave::train {
namespace {

// Pickle opcodes (the names of CPython's Lib/pickle.py).
enum : uint8_t {
  kMark = '(',
  kStop = '.',
  kPop = '0',
  kPopMark = '1',
  kDup = '2',
  kFloat = 'F',
  kInt = 'I',
  kBinInt = 'J',
  kBinInt1 = 'K',
  kLong = 'L',
  kBinInt2 = 'M',
  kNone = 'N',
  kPersId = 'P',
  kBinPersId = 'Q',
  kReduce = 'R',
  kString = 'S',
  kBinString = 'T',
  kShortBinString = 'U',
  kUnicode = 'V',
  kBinUnicode = 'X',
  kAppend = 'a',
  kBuild = 'b',
  kGlobal = 'c',
  kDict = 'd',
  kEmptyDict = '}',
  kAppends = 'e',
  kGet = 'g',
  kBinGet = 'h',
  kInst = 'i',
  kLongBinGet = 'j',
  kList = 'l',
  kEmptyList = ']',
  kObj = 'o',
  kPut = 'p',
  kBinPut = 'q',
  kLongBinPut = 'r',
  kSetItem = 's',
  kTuple = 't',
  kEmptyTuple = ')',
  kSetItems = 'u',
  kBinFloat = 'G',
  // protocol 2
  kProto = 0x80,
  kNewObj = 0x81,
  kExt1 = 0x82,
  kExt2 = 0x83,
  kExt4 = 0x84,
  kTuple1 = 0x85,
  kTuple2 = 0x86,
  kTuple3 = 0x87,
  kNewTrue = 0x88,
  kNewFalse = 0x89,
  kLong1 = 0x8a,
  kLong4 = 0x8b,
  // protocol 3
  kBinBytes = 'B',
  kShortBinBytes = 'C',
  // protocol 4
  kShortBinUnicode = 0x8c,
  kBinUnicode8 = 0x8d,
  kBinBytes8 = 0x8e,
  kEmptySet = 0x8f,
  kAddItems = 0x90,
  kFrozenSet = 0x91,
  kNewObjEx = 0x92,
  kStackGlobal = 0x93,
  kMemoize = 0x94,
  kFrame = 0x95,
  // protocol 5
  kByteArray8 = 0x96,
  kNextBuffer = 0x97,
  kReadonlyBuffer = 0x98,
};

using Kind = PickleValue::Kind;

/// A refusal inside the unpickler; turned into an Error at its top level.
struct Refusal {
  size_t offset;
  std::string message;
};

bool isBuiltins(const std::string& m) {
  return m == "builtins" || m == "__builtin__";
}
bool isCopyreg(const std::string& m) {
  return m == "copyreg" || m == "copy_reg";
}
bool startsWith(const std::string& s, std::string_view p) {
  return s.compare(0, p.size(), p) == 0;
}
bool inPackage(const std::string& m, std::string_view pkg) {
  return m == pkg || (startsWith(m, pkg) && m.size() > pkg.size() && m[pkg.size()] == '.');
}

/// Modules whose classes a checkpoint holds as plain records (NEWOBJ, copyreg._reconstructor):
/// Ultralytics' and torch's modules, namespaces, paths, dates, numpy.
bool classAllowed(const std::string& module, const std::string& name) {
  if (isBuiltins(module)) return name == "object";
  for (std::string_view pkg :
       {"ultralytics", "torch", "collections", "types", "argparse", "pathlib", "numpy", "datetime"})
    if (inPackage(module, pkg)) return true;
  return false;
}

bool storageDType(const std::string& name, StorageDType* out) {
  static const std::pair<const char*, StorageDType> kTypes[] = {
      {"HalfStorage", StorageDType::Half},         {"FloatStorage", StorageDType::Float},
      {"BFloat16Storage", StorageDType::BFloat16}, {"DoubleStorage", StorageDType::Double},
      {"LongStorage", StorageDType::Long},         {"IntStorage", StorageDType::Int},
      {"ShortStorage", StorageDType::Short},       {"CharStorage", StorageDType::Char},
      {"ByteStorage", StorageDType::Byte},         {"BoolStorage", StorageDType::Bool},
      {"UntypedStorage", StorageDType::Byte},
  };
  for (const auto& [n, t] : kTypes)
    if (name == n) {
      *out = t;
      return true;
    }
  return false;
}

const char* kindName(Kind k) {
  switch (k) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Str:
      return "str";
    case Kind::Bytes:
      return "bytes";
    case Kind::List:
      return "list";
    case Kind::Tuple:
      return "tuple";
    case Kind::Set:
      return "set";
    case Kind::Dict:
      return "dict";
    case Kind::Global:
      return "global";
    case Kind::Object:
      return "object";
    case Kind::Storage:
      return "storage";
    case Kind::Tensor:
      return "tensor";
  }
  return "?";
}

/// Appends code point `cp` to `out` as UTF-8.
void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xf0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3f));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

size_t storageElementSize(StorageDType t) {
  switch (t) {
    case StorageDType::Half:
    case StorageDType::BFloat16:
    case StorageDType::Short:
      return 2;
    case StorageDType::Float:
    case StorageDType::Int:
      return 4;
    case StorageDType::Double:
    case StorageDType::Long:
      return 8;
    case StorageDType::Char:
    case StorageDType::Byte:
    case StorageDType::Bool:
      return 1;
  }
  return 1;
}

const char* storageDTypeName(StorageDType t) {
  switch (t) {
    case StorageDType::Half:
      return "float16";
    case StorageDType::Float:
      return "float32";
    case StorageDType::BFloat16:
      return "bfloat16";
    case StorageDType::Double:
      return "float64";
    case StorageDType::Long:
      return "int64";
    case StorageDType::Int:
      return "int32";
    case StorageDType::Short:
      return "int16";
    case StorageDType::Char:
      return "int8";
    case StorageDType::Byte:
      return "uint8";
    case StorageDType::Bool:
      return "bool";
  }
  return "?";
}

c10::ScalarType toScalarType(StorageDType t) {
  switch (t) {
    case StorageDType::Half:
      return c10::ScalarType::Half;
    case StorageDType::Float:
      return c10::ScalarType::Float;
    case StorageDType::BFloat16:
      return c10::ScalarType::BFloat16;
    case StorageDType::Double:
      return c10::ScalarType::Double;
    case StorageDType::Long:
      return c10::ScalarType::Long;
    case StorageDType::Int:
      return c10::ScalarType::Int;
    case StorageDType::Short:
      return c10::ScalarType::Short;
    case StorageDType::Char:
      return c10::ScalarType::Char;
    case StorageDType::Byte:
      return c10::ScalarType::Byte;
    case StorageDType::Bool:
      return c10::ScalarType::Bool;
  }
  return c10::ScalarType::Byte;
}

const PickleValue* PickleValue::find(std::string_view key) const {
  if (kind != Kind::Dict) return nullptr;
  for (const auto& [k, v] : entries)
    if (k->kind == Kind::Str && k->text == key) return v;
  return nullptr;
}

std::string PickleValue::describe() const {
  if (kind == Kind::Object || kind == Kind::Global)
    return std::string(kindName(kind)) + " " + qualifiedName();
  return kindName(kind);
}

/// The restricted unpickler. Every failure throws a Refusal (offset + message) that run()
/// turns into an Error; nothing it reads is ever called.
class Unpickler {
 public:
  Unpickler(std::string_view bytes, const PickleLimits& limits)
      : m_in(bytes), m_limits(limits), m_values(std::make_shared<std::deque<PickleValue>>()) {}

  PickleDocument run() {
    if (m_in.size() > m_limits.maxPickleBytes)
      fail("the pickle is " + std::to_string(m_in.size()) + " bytes, more than the limit of " +
           std::to_string(m_limits.maxPickleBytes));
    PickleValue* result = nullptr;
    while (!result) result = step();
    checkGraph(result);
    PickleDocument doc;
    doc.m_values = m_values;
    doc.m_root = result;
    doc.m_storages = std::move(m_storages);
    return doc;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw Refusal{m_op, message}; }

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
  /// A little-endian two's-complement integer of n bytes (LONG1, LONG4).
  int64_t longBytes(uint64_t n) {
    const auto* p = reinterpret_cast<const uint8_t*>(take(n));
    if (n == 0) return 0;
    const bool negative = p[n - 1] & 0x80;
    // Bytes past the eighth must only extend the sign.
    for (uint64_t i = 8; i < n; ++i)
      if (p[i] != (negative ? 0xff : 0x00)) fail("an integer too large for 64 bits");
    uint64_t v = negative ? ~uint64_t(0) : 0;
    for (uint64_t i = std::min<uint64_t>(n, 8); i-- > 0;) v = (v << 8) | p[i];
    if (n > 8 && (bool(v >> 63) != negative)) fail("an integer too large for 64 bits");
    return int64_t(v);
  }
  int64_t decimal(std::string_view s) {
    if (!s.empty() && s.back() == 'L') s.remove_suffix(1);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
      fail("an integer that is not a 64-bit decimal number");
    return v;
  }
  /// Protocol 0's STRING: a Python repr in quotes.
  std::string quoted(std::string_view s) {
    if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front())
      fail("a STRING argument that is not quoted");
    s = s.substr(1, s.size() - 2);
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\\' || i + 1 == s.size()) {
        out += s[i];
        continue;
      }
      const char c = s[++i];
      switch (c) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case 'x': {
          const int hi = i + 2 < s.size() ? hexDigit(s[i + 1]) : -1;
          const int lo = hi >= 0 ? hexDigit(s[i + 2]) : -1;
          if (lo < 0) fail("a bad \\x escape in a STRING");
          out += char(hi * 16 + lo);
          i += 2;
          break;
        }
        default:
          out += c;
      }
    }
    return out;
  }
  /// Protocol 0's UNICODE: raw-unicode-escape (\uXXXX, \UXXXXXXXX), other bytes as latin-1.
  std::string rawUnicode(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t width = (s[i] == '\\' && i + 1 < s.size()) ? (s[i + 1] == 'u'   ? 4
                                                                 : s[i + 1] == 'U' ? 8
                                                                                   : 0)
                                                              : 0;
      if (width && i + 2 + width <= s.size()) {
        uint32_t cp = 0;
        for (size_t k = 0; k < width; ++k) {
          const int d = hexDigit(s[i + 2 + k]);
          if (d < 0) fail("a bad \\u escape in a UNICODE string");
          cp = cp * 16 + uint32_t(d);
        }
        if (cp > 0x10ffff) fail("a \\U escape past the last Unicode code point");
        appendUtf8(out, cp);
        i += 1 + width;
      } else {
        appendUtf8(out, uint8_t(s[i]));
      }
    }
    return out;
  }

  // --- The opcodes -------------------------------------------------------------------------
  /// Runs one opcode; returns the result at STOP, else nullptr.
  PickleValue* step() {
    m_op = m_pos;
    if (m_pos >= m_in.size())
      fail("truncated: the pickle ends at byte " + std::to_string(m_in.size()) + " without STOP");
    const uint8_t code = u8();
    switch (code) {
      case kProto: {
        const uint8_t proto = u8();
        if (proto > 5) fail("pickle protocol " + std::to_string(proto) + " (0 to 5 are known)");
        break;
      }
      case kFrame: {
        const uint64_t n = le(8);
        if (n > m_in.size() - m_pos) fail("truncated: a FRAME longer than the rest of the pickle");
        break;
      }
      case kStop:
        return pop();
      case kMark:
        if (m_marks.size() >= m_limits.maxMarks)
          fail("more than " + std::to_string(m_limits.maxMarks) +
               " MARKs open (the nesting limit)");
        m_marks.push_back(m_stack.size());
        break;
      case kPop:
        if (m_stack.size() == markBase() && !m_marks.empty())
          m_marks.pop_back();
        else
          pop();
        break;
      case kPopMark:
        popMark();
        break;
      case kDup:
        push(top());
        break;

      case kNone:
        push(make(Kind::None));
        break;
      case kNewTrue:
      case kNewFalse: {
        PickleValue* v = make(Kind::Bool);
        v->boolean = code == kNewTrue;
        push(v);
        break;
      }
      case kInt: {
        const std::string_view s = line();
        if (s == "00" || s == "01") {
          PickleValue* v = make(Kind::Bool);
          v->boolean = s == "01";
          push(v);
        } else {
          push(integer(decimal(s)));
        }
        break;
      }
      case kBinInt:
        push(integer(int32_t(uint32_t(le(4)))));
        break;
      case kBinInt1:
        push(integer(u8()));
        break;
      case kBinInt2:
        push(integer(int64_t(le(2))));
        break;
      case kLong:
        push(integer(decimal(line())));
        break;
      case kLong1: {
        const uint8_t n = u8();
        push(integer(longBytes(n)));
        break;
      }
      case kLong4: {
        const int32_t n = int32_t(uint32_t(le(4)));
        if (n < 0) fail("LONG4 with a negative length");
        push(integer(longBytes(uint64_t(n))));
        break;
      }
      case kFloat: {
        const std::string_view s = line();
        double d = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
        if (ec != std::errc() || p != s.data() + s.size()) fail("a FLOAT that is not a number");
        PickleValue* v = make(Kind::Float);
        v->real = d;
        push(v);
        break;
      }
      case kBinFloat: {
        const auto* p = reinterpret_cast<const uint8_t*>(take(8));
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];  // big-endian
        PickleValue* v = make(Kind::Float);
        std::memcpy(&v->real, &bits, sizeof bits);
        push(v);
        break;
      }

      case kString: {
        const std::string s = quoted(line());
        push(text(Kind::Str, s.data(), s.size()));
        break;
      }
      case kBinString: {
        const int32_t n = int32_t(uint32_t(le(4)));
        if (n < 0) fail("BINSTRING with a negative length");
        push(text(Kind::Str, take(uint64_t(n)), size_t(n)));
        break;
      }
      case kShortBinString: {
        const uint8_t n = u8();
        push(text(Kind::Str, take(n), n));
        break;
      }
      case kUnicode: {
        const std::string s = rawUnicode(line());
        push(text(Kind::Str, s.data(), s.size()));
        break;
      }
      case kShortBinUnicode:
      case kBinUnicode:
      case kBinUnicode8: {
        const uint64_t n = le(code == kShortBinUnicode ? 1 : code == kBinUnicode ? 4 : 8);
        push(text(Kind::Str, take(n), size_t(n)));
        break;
      }
      case kShortBinBytes:
      case kBinBytes:
      case kBinBytes8:
      case kByteArray8: {
        const uint64_t n = le(code == kShortBinBytes ? 1 : code == kBinBytes ? 4 : 8);
        push(text(Kind::Bytes, take(n), size_t(n)));
        break;
      }

      case kEmptyList:
        push(make(Kind::List));
        break;
      case kEmptyDict:
        push(make(Kind::Dict));
        break;
      case kEmptyTuple:
        push(make(Kind::Tuple));
        break;
      case kEmptySet:
        push(make(Kind::Set));
        break;
      case kList:
      case kTuple:
      case kFrozenSet: {
        auto items = popMark();
        PickleValue* v = make(code == kList    ? Kind::List
                              : code == kTuple ? Kind::Tuple
                                               : Kind::Set);
        v->items = std::move(items);
        push(v);
        break;
      }
      case kTuple1:
      case kTuple2:
      case kTuple3: {
        const int n = code - kTuple1 + 1;
        std::vector<PickleValue*> items(size_t(n), nullptr);
        for (int i = n - 1; i >= 0; --i) items[size_t(i)] = pop();
        PickleValue* v = make(Kind::Tuple);
        v->items = std::move(items);
        push(v);
        break;
      }
      case kDict: {
        auto items = popMark();
        PickleValue* v = make(Kind::Dict);
        addPairs(v, items);
        push(v);
        break;
      }
      case kAppend: {
        PickleValue* item = pop();
        PickleValue* list = top();
        if (list->kind != Kind::List) fail("APPEND to a " + list->describe() + ", not a list");
        list->items.push_back(item);
        break;
      }
      case kAppends: {
        auto items = popMark();
        PickleValue* list = top();
        if (list->kind != Kind::List) fail("APPENDS to a " + list->describe() + ", not a list");
        list->items.insert(list->items.end(), items.begin(), items.end());
        break;
      }
      case kSetItem: {
        PickleValue* value = pop();
        PickleValue* key = pop();
        PickleValue* dict = top();
        if (dict->kind != Kind::Dict) fail("SETITEM on a " + dict->describe() + ", not a dict");
        dict->entries.emplace_back(key, value);
        break;
      }
      case kSetItems: {
        auto items = popMark();
        PickleValue* dict = top();
        if (dict->kind != Kind::Dict) fail("SETITEMS on a " + dict->describe() + ", not a dict");
        addPairs(dict, items);
        break;
      }
      case kAddItems: {
        auto items = popMark();
        PickleValue* set = top();
        if (set->kind != Kind::Set) fail("ADDITEMS on a " + set->describe() + ", not a set");
        set->items.insert(set->items.end(), items.begin(), items.end());
        break;
      }

      case kGet:
        memoGet(parseIndex(line(), *this));
        break;
      case kBinGet:
        memoGet(u8());
        break;
      case kLongBinGet:
        memoGet(le(4));
        break;
      case kPut:
        memoPut(parseIndex(line(), *this));
        break;
      case kBinPut:
        memoPut(u8());
        break;
      case kLongBinPut:
        memoPut(le(4));
        break;
      case kMemoize:
        memoPut(m_memo.size());
        break;

      case kGlobal: {
        const std::string_view module = line();
        const std::string_view name = line();
        push(global(std::string(module), std::string(name)));
        break;
      }
      case kStackGlobal: {
        PickleValue* name = pop();
        PickleValue* module = pop();
        if (module->kind != Kind::Str || name->kind != Kind::Str)
          fail("STACK_GLOBAL of values that are not strings");
        push(global(module->text, name->text));
        break;
      }
      case kReduce: {
        PickleValue* args = pop();
        PickleValue* callable = pop();
        push(reduce(callable, args));
        break;
      }
      case kNewObj: {
        PickleValue* args = pop();
        PickleValue* cls = pop();
        if (args->kind != Kind::Tuple) fail("NEWOBJ with arguments that are not a tuple");
        push(newObject("NEWOBJ", cls, args->items));
        break;
      }
      case kNewObjEx: {
        PickleValue* kwargs = pop();
        PickleValue* args = pop();
        PickleValue* cls = pop();
        if (args->kind != Kind::Tuple || kwargs->kind != Kind::Dict)
          fail("NEWOBJ_EX with arguments that are not a tuple and a dict");
        PickleValue* obj = newObject("NEWOBJ_EX", cls, args->items);
        if (!kwargs->entries.empty()) obj->items.push_back(kwargs);
        push(obj);
        break;
      }
      case kInst: {
        const std::string module(line());
        const std::string name(line());
        auto args = popMark();
        push(newObject("INST", global(module, name), args));
        break;
      }
      case kObj: {
        auto items = popMark();
        if (items.empty()) fail("OBJ without a class");
        PickleValue* cls = items.front();
        items.erase(items.begin());
        push(newObject("OBJ", cls, items));
        break;
      }
      case kBuild: {
        PickleValue* state = pop();
        PickleValue* obj = top();
        if (obj->kind != Kind::Object) fail("BUILD of a " + obj->describe() + ", not an object");
        if (obj->state && obj->state->kind == Kind::Dict && state->kind == Kind::Dict) {
          obj->state->entries.insert(obj->state->entries.end(), state->entries.begin(),
                                     state->entries.end());
        } else {
          obj->state = state;
        }
        break;
      }
      case kBinPersId:
        push(persistentLoad(pop()));
        break;
      case kPersId:
        fail("a text persistent id (PERSID); torch.save writes BINPERSID");
      case kExt1:
      case kExt2:
      case kExt4:
        fail("an extension-registry opcode (EXT1/EXT2/EXT4): not part of a checkpoint");
      case kNextBuffer:
        fail("an out-of-band buffer (NEXT_BUFFER): not part of a checkpoint");
      case kReadonlyBuffer:
        top();
        break;
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", code);
        fail(std::string("unknown opcode ") + hex);
      }
    }
    return nullptr;
  }

  void addPairs(PickleValue* dict, const std::vector<PickleValue*>& items) {
    if (items.size() % 2) fail("a dict's items are not key, value pairs (an odd count)");
    for (size_t i = 0; i < items.size(); i += 2) dict->entries.emplace_back(items[i], items[i + 1]);
  }

  PickleValue* global(std::string module, std::string name) {
    if (module.empty() || name.empty() || module.size() > 256 || name.size() > 256)
      fail("a GLOBAL with an empty or overlong name");
    PickleValue* v = make(Kind::Global);
    v->module = std::move(module);
    v->name = std::move(name);
    return v;
  }

  PickleValue* newObject(const char* how, const PickleValue* cls,
                         const std::vector<PickleValue*>& args) {
    if (cls->kind != Kind::Global)
      fail(std::string(how) + " of a " + cls->describe() + ", not a class");
    if (!classAllowed(cls->module, cls->name))
      fail(std::string("refused: ") + how + " of " + cls->qualifiedName() +
           " — not a class a checkpoint holds (only ultralytics, torch, collections, numpy, "
           "pathlib, datetime, argparse and types ones are read as records); nothing was run");
    PickleValue* obj = make(Kind::Object);
    obj->module = cls->module;
    obj->name = cls->name;
    obj->items = args;
    return obj;
  }

  [[noreturn]] void refuseCall(const PickleValue* callable, const std::string& why) {
    fail("refused: REDUCE of " + callable->qualifiedName() + " — " + why + "; nothing was run");
  }

  /// REDUCE: callable(*args), for the data constructors on the list only.
  PickleValue* reduce(PickleValue* callable, PickleValue* argsValue) {
    if (callable->kind != Kind::Global)
      fail("REDUCE of a " + callable->describe() + ", not a named constructor");
    if (argsValue->kind != Kind::Tuple) fail("REDUCE with arguments that are not a tuple");
    const auto& args = argsValue->items;
    const std::string& m = callable->module;
    const std::string& n = callable->name;
    auto argCount = [&](size_t lo, size_t hi) {
      if (args.size() < lo || args.size() > hi)
        fail("REDUCE of " + callable->qualifiedName() + " with " + std::to_string(args.size()) +
             " arguments (expected " + std::to_string(lo) +
             (hi > lo ? " to " + std::to_string(hi) : "") + ")");
    };
    auto record = [&]() {
      PickleValue* obj = make(Kind::Object);
      obj->module = m;
      obj->name = n;
      obj->items = args;
      return obj;
    };

    if (m == "collections" && n == "OrderedDict") {
      argCount(0, 1);
      PickleValue* d = make(Kind::Dict);
      if (!args.empty()) {
        for (PickleValue* pair : sequence(args[0])) {
          if ((pair->kind != Kind::Tuple && pair->kind != Kind::List) || pair->items.size() != 2)
            fail("OrderedDict from items that are not (key, value) pairs");
          d->entries.emplace_back(pair->items[0], pair->items[1]);
        }
      }
      return d;
    }
    if (isBuiltins(m) && (n == "set" || n == "frozenset")) {
      argCount(0, 1);
      PickleValue* s = make(Kind::Set);
      if (!args.empty()) s->items = sequence(args[0]);
      return s;
    }
    if (isCopyreg(m) && n == "_reconstructor") {
      argCount(3, 3);
      PickleValue* obj = newObject("copyreg._reconstructor", args[0], {});
      if (!args[2]->isNone()) obj->items.push_back(args[2]);
      return obj;
    }
    if (isCopyreg(m) && n == "__newobj__") {
      argCount(1, 64);
      return newObject("copyreg.__newobj__", args[0],
                       std::vector<PickleValue*>(args.begin() + 1, args.end()));
    }
    if (m == "_codecs" && n == "encode") {
      // Protocol 2 writes bytes as _codecs.encode(str, 'latin1').
      argCount(2, 2);
      if (args[0]->kind != Kind::Str || args[1]->kind != Kind::Str)
        fail("_codecs.encode of values that are not strings");
      const std::string& enc = args[1]->text;
      if (enc != "latin1" && enc != "latin-1" && enc != "iso-8859-1")
        refuseCall(callable, "an encoding other than latin1 (" + enc + ")");
      return latin1Bytes(args[0]->text);
    }
    if (m == "torch._utils" && (n == "_rebuild_tensor_v2" || n == "_rebuild_tensor")) {
      if (n == "_rebuild_tensor")
        argCount(4, 4);
      else
        argCount(6, 7);
      return rebuildTensor(args);
    }
    if (m == "torch._utils" &&
        (n == "_rebuild_parameter" || n == "_rebuild_parameter_with_state")) {
      argCount(n == "_rebuild_parameter" ? 3 : 4, n == "_rebuild_parameter" ? 3 : 4);
      if (args[0]->kind != Kind::Tensor)
        fail(n + " of a " + args[0]->describe() + ", not a tensor");
      PickleValue* t = make(Kind::Tensor);
      t->tensor = args[0]->tensor;
      t->tensor.parameter = true;
      t->tensor.requiresGrad = truthy(args[1]);
      return t;
    }
    if (m == "torch" && n == "Size") {
      argCount(1, 1);
      PickleValue* t = make(Kind::Tuple);
      t->items = sequence(args[0]);
      return t;
    }
    if (m == "torch" && n == "device") {
      argCount(1, 2);
      return record();
    }
    if ((m == "numpy.core.multiarray" || m == "numpy._core.multiarray") && n == "scalar") {
      argCount(1, 2);
      return numpyScalar(callable, args);
    }
    if (m == "numpy" && n == "dtype") {
      argCount(1, 3);
      return record();
    }
    if ((m == "numpy.core.multiarray" || m == "numpy._core.multiarray") && n == "_reconstruct") {
      argCount(3, 3);
      return record();  // an ndarray: its shape, dtype and bytes arrive by BUILD
    }
    if (m == "pathlib" && (n == "Path" || n == "PosixPath" || n == "WindowsPath" ||
                           n == "PurePath" || n == "PurePosixPath" || n == "PureWindowsPath"))
      return record();  // the path's parts as strings
    if (m == "datetime" &&
        (n == "datetime" || n == "date" || n == "time" || n == "timedelta" || n == "timezone"))
      return record();
    if ((m == "argparse" && n == "Namespace") || (m == "types" && n == "SimpleNamespace") ||
        inPackage(m, "ultralytics")) {
      // A namespace (Ultralytics' IterableSimpleNamespace): cls(), its attributes by BUILD.
      if (!args.empty())
        refuseCall(callable, "a call with arguments (only cls() of a namespace is read)");
      return record();
    }
    refuseCall(callable, "not a constructor of data on Stave's list");
  }

  /// The items of a list, tuple or set argument.
  std::vector<PickleValue*> sequence(const PickleValue* v) {
    if (v->kind != Kind::List && v->kind != Kind::Tuple && v->kind != Kind::Set)
      fail("a " + v->describe() + " where a list or tuple was expected");
    return v->items;
  }

  static bool truthy(const PickleValue* v) {
    return (v->kind == Kind::Bool && v->boolean) || (v->kind == Kind::Int && v->integer != 0);
  }

  PickleValue* latin1Bytes(const std::string& utf8) {
    PickleValue* b = make(Kind::Bytes);
    b->text.reserve(utf8.size());
    for (size_t i = 0; i < utf8.size(); ++i) {
      const uint8_t c = uint8_t(utf8[i]);
      if (c < 0x80) {
        b->text += char(c);
      } else if ((c & 0xe0) == 0xc0 && i + 1 < utf8.size() && c <= 0xc3) {
        b->text += char(((c & 0x1f) << 6) | (uint8_t(utf8[++i]) & 0x3f));
      } else {
        fail("_codecs.encode of text that is not latin-1");
      }
    }
    return b;
  }

  /// numpy.core.multiarray.scalar(dtype, bytes): a number when the dtype is a plain
  /// little-endian number; else a record.
  PickleValue* numpyScalar(const PickleValue* callable, const std::vector<PickleValue*>& args) {
    const PickleValue* dtype = args[0];
    const PickleValue* raw = args.size() > 1 ? args[1] : nullptr;
    std::string code;
    if (dtype->kind == Kind::Object && dtype->qualifiedName() == "numpy.dtype" &&
        !dtype->items.empty() && dtype->items[0]->kind == Kind::Str)
      code = dtype->items[0]->text;
    // The byte order is in the dtype's BUILD state: (version, '<' | '>' | '|' | '=', ...).
    bool littleEndian = true;
    if (dtype->kind == Kind::Object && dtype->state && dtype->state->kind == Kind::Tuple &&
        dtype->state->items.size() > 1 && dtype->state->items[1]->kind == Kind::Str)
      littleEndian = dtype->state->items[1]->text != ">";
    if (raw && raw->kind == Kind::Bytes && littleEndian) {
      const std::string& b = raw->text;
      auto bytesAre = [&](size_t n) { return b.size() == n; };
      auto load = [&](auto x) {
        std::memcpy(&x, b.data(), sizeof x);
        return x;
      };
      if (code == "f8" && bytesAre(8)) return real(load(double()));
      if (code == "f4" && bytesAre(4)) return real(load(float()));
      if (code == "f2" && bytesAre(2))
        return real(c10::Half(load(uint16_t()), c10::Half::from_bits()));
      if (code == "i8" && bytesAre(8)) return integer(load(int64_t()));
      if (code == "i4" && bytesAre(4)) return integer(load(int32_t()));
      if (code == "i2" && bytesAre(2)) return integer(load(int16_t()));
      if (code == "i1" && bytesAre(1)) return integer(load(int8_t()));
      if (code == "u8" && bytesAre(8)) return integer(int64_t(load(uint64_t())));
      if (code == "u4" && bytesAre(4)) return integer(load(uint32_t()));
      if (code == "u2" && bytesAre(2)) return integer(load(uint16_t()));
      if (code == "u1" && bytesAre(1)) return integer(load(uint8_t()));
      if (code == "b1" && bytesAre(1)) {
        PickleValue* v = make(Kind::Bool);
        v->boolean = b[0] != 0;
        return v;
      }
    }
    PickleValue* obj = make(Kind::Object);
    obj->module = callable->module;
    obj->name = callable->name;
    obj->items = args;
    return obj;
  }
  PickleValue* real(double d) {
    PickleValue* v = make(Kind::Float);
    v->real = d;
    return v;
  }

  /// BINPERSID: ('storage', torch.<Type>Storage, key, location, numel).
  PickleValue* persistentLoad(const PickleValue* pid) {
    if (pid->kind != Kind::Tuple || pid->items.size() != 5 || pid->items[0]->kind != Kind::Str ||
        pid->items[0]->text != "storage")
      fail("a persistent id that is not ('storage', type, key, location, numel)");
    const PickleValue* type = pid->items[1];
    const PickleValue* key = pid->items[2];
    const PickleValue* location = pid->items[3];
    const PickleValue* numel = pid->items[4];
    PickleStorage s;
    if (type->kind != Kind::Global ||
        !(type->module == "torch" || type->module == "torch.storage") ||
        !storageDType(type->name, &s.dtype))
      fail("a storage of type " +
           (type->kind == Kind::Global ? type->qualifiedName() : type->describe()) +
           " (expected torch.<Type>Storage)");
    if (key->kind != Kind::Str || key->text.empty() || key->text.size() > 64)
      fail("a storage key that is not a short string");
    for (char c : key->text)
      if (!std::isalnum(uint8_t(c)) && c != '_')
        fail("a storage key with characters other than letters, digits and '_'");
    if (location->kind != Kind::Str) fail("a storage location that is not a string");
    if (numel->kind != Kind::Int || numel->integer < 0)
      fail("a storage size that is not a non-negative integer");
    s.key = key->text;
    s.location = location->text;
    s.numel = numel->integer;
    s.offset = m_op;
    if (uint64_t(s.numel) > (uint64_t(1) << 62) / storageElementSize(s.dtype))
      fail("storage " + s.key + " declares " + std::to_string(s.numel) +
           " elements (more than 2^62 bytes)");
    auto [it, fresh] = m_storageIndex.emplace(s.key, m_storages.size());
    if (fresh) {
      m_storages.push_back(s);
    } else {
      const PickleStorage& before = m_storages[it->second];
      if (before.dtype != s.dtype || before.numel != s.numel)
        fail("storage " + s.key + " named again as " + std::to_string(s.numel) + " " +
             storageDTypeName(s.dtype) + " elements, first as " + std::to_string(before.numel) +
             " " + storageDTypeName(before.dtype) + " (a dtype or size mismatch)");
    }
    PickleValue* v = make(Kind::Storage);
    v->tensor.storage = std::move(s);
    return v;
  }

  /// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, meta]).
  PickleValue* rebuildTensor(const std::vector<PickleValue*>& args) {
    if (args[0]->kind != Kind::Storage)
      fail("a tensor whose storage is a " + args[0]->describe() + ", not a persistent storage");
    PickleTensor t;
    t.storage = args[0]->tensor.storage;
    if (args[1]->kind != Kind::Int || args[1]->integer < 0)
      fail("a tensor storage offset that is not a non-negative integer");
    t.storageOffset = args[1]->integer;
    auto ints = [&](const PickleValue* v, const char* what) {
      std::vector<int64_t> out;
      for (const PickleValue* x : sequence(v)) {
        if (x->kind != Kind::Int || x->integer < 0)
          fail(std::string("a tensor ") + what + " that is not a tuple of non-negative integers");
        out.push_back(x->integer);
      }
      return out;
    };
    t.sizes = ints(args[2], "size");
    t.strides = ints(args[3], "stride");
    if (t.sizes.size() != t.strides.size())
      fail("a tensor with " + std::to_string(t.sizes.size()) + " sizes but " +
           std::to_string(t.strides.size()) + " strides");
    if (t.sizes.size() > m_limits.maxTensorDims)
      fail("a tensor of " + std::to_string(t.sizes.size()) + " dimensions (the limit is " +
           std::to_string(m_limits.maxTensorDims) + ")");
    if (args.size() > 4) t.requiresGrad = truthy(args[4]);
    // The view must lie inside its storage: offset + sum((size - 1) * stride) < numel.
    const int64_t numel = t.storage.numel;
    bool empty = false;
    int64_t elements = 1;
    int64_t last = t.storageOffset;
    bool overflow = false;
    for (size_t i = 0; i < t.sizes.size(); ++i) {
      if (t.sizes[i] == 0) empty = true;
      overflow = overflow || __builtin_mul_overflow(elements, t.sizes[i], &elements);
      int64_t reach = 0;
      overflow =
          overflow ||
          __builtin_mul_overflow(t.sizes[i] > 0 ? t.sizes[i] - 1 : 0, t.strides[i], &reach) ||
          __builtin_add_overflow(last, reach, &last);
    }
    const std::string where =
        "tensor of storage " + t.storage.key + " (" + std::to_string(numel) + " elements)";
    if (overflow) fail(where + ": its sizes and strides overflow 64 bits");
    if (empty ? t.storageOffset > numel : last >= numel)
      fail(where + ": storage offset " + std::to_string(t.storageOffset) +
           " with its sizes and strides reaches element " + std::to_string(last) +
           ", past the end of its storage");
    // A broadcast view (stride 0) may hold more elements than its storage; a huge one would
    // be an allocation bomb for whoever copies it.
    if (elements > std::max<int64_t>(numel, int64_t(1) << 24))
      fail(where + ": a view of " + std::to_string(elements) + " elements");
    PickleValue* v = make(Kind::Tensor);
    v->tensor = std::move(t);
    return v;
  }

  // --- The finished graph ------------------------------------------------------------------
  /// Walks everything reachable from `root` once, without recursion: refuses a cycle (a
  /// container that contains itself) and a nesting deeper than the limit, and keeps only the
  /// last value of a dict key written twice (as Python's dict does).
  void checkGraph(PickleValue* root) {
    enum : uint8_t { kWhite, kGray, kBlack };
    std::vector<uint8_t> color(m_values->size(), kWhite);
    std::vector<uint32_t> height(m_values->size(), 0);
    struct Frame {
      PickleValue* v;
      size_t next;
    };
    std::vector<Frame> stack;
    auto enter = [&](PickleValue* v) {
      color[v->id] = kGray;
      dedupeKeys(v);
      stack.push_back({v, 0});
    };
    enter(root);
    while (!stack.empty()) {
      Frame& f = stack.back();
      PickleValue* v = f.v;
      PickleValue* child = nullptr;
      size_t i = f.next++;
      if (i < v->items.size()) {
        child = v->items[i];
      } else if ((i -= v->items.size()) < 2 * v->entries.size()) {
        child = i % 2 ? v->entries[i / 2].second : v->entries[i / 2].first;
      } else if (i == 2 * v->entries.size() && v->state) {
        child = v->state;
      }
      if (child) {
        if (color[child->id] == kGray) {
          m_op = child->offset;
          fail("a cycle: the " + child->describe() + " made at byte " +
               std::to_string(child->offset) + " contains itself");
        }
        if (color[child->id] == kWhite) {
          enter(child);
        } else {
          height[v->id] = std::max(height[v->id], height[child->id] + 1);
        }
        continue;
      }
      color[v->id] = kBlack;
      const uint32_t h = height[v->id];
      if (h > m_limits.maxDepth) {
        m_op = v->offset;
        fail("values nested more than " + std::to_string(m_limits.maxDepth) +
             " deep (the limit), below the " + v->describe() + " made at byte " +
             std::to_string(v->offset));
      }
      stack.pop_back();
      if (!stack.empty()) {
        PickleValue* parent = stack.back().v;
        height[parent->id] = std::max(height[parent->id], h + 1);
      }
    }
  }

  static void dedupeKeys(PickleValue* d) {
    if (d->kind != Kind::Dict || d->entries.size() < 2) return;
    auto keyOf = [](const PickleValue* k, std::string* out) {
      switch (k->kind) {
        case Kind::Str:
          *out = "s" + k->text;
          return true;
        case Kind::Bytes:
          *out = "b" + k->text;
          return true;
        case Kind::Int:
          *out = "i" + std::to_string(k->integer);
          return true;
        case Kind::Bool:
          *out = "i" + std::to_string(int(k->boolean));
          return true;
        case Kind::None:
          *out = "n";
          return true;
        default:
          return false;
      }
    };
    std::unordered_map<std::string, size_t> seen;
    std::vector<std::pair<PickleValue*, PickleValue*>> kept;
    kept.reserve(d->entries.size());
    std::string key;
    for (auto& e : d->entries) {
      if (!keyOf(e.first, &key)) {
        kept.push_back(e);
        continue;
      }
      auto [it, fresh] = seen.emplace(key, kept.size());
      if (fresh)
        kept.push_back(e);
      else
        kept[it->second].second = e.second;
    }
    if (kept.size() != d->entries.size()) d->entries = std::move(kept);
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

Result<PickleDocument> readPickle(std::string_view bytes, const std::string& file,
                                  const std::string& record, const PickleLimits& limits) {
  try {
    Unpickler u(bytes, limits);
    return u.run();
  } catch (const Refusal& r) {
    return Error{file, 0, record, "at byte " + std::to_string(r.offset) + ": " + r.message};
  } catch (const std::bad_alloc&) {
    return Error{file, 0, record, "out of memory while reading the pickle"};
  }
}

}  // namespace stave::train
