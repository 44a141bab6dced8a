#include "core/train/pickle_reader.h"

#include <charconv>
#include <cstdio>
#include <unordered_map>

#include "core/train/pickle_unpickler.h"

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

PickleDocument Unpickler::run() {
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

/// A little-endian two's-complement integer of n bytes (LONG1, LONG4).
int64_t Unpickler::longBytes(uint64_t n) {
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

int64_t Unpickler::decimal(std::string_view s) {
  if (!s.empty() && s.back() == 'L') s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    fail("an integer that is not a 64-bit decimal number");
  return v;
}

/// Protocol 0's STRING: a Python repr in quotes.
std::string Unpickler::quoted(std::string_view s) {
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
std::string Unpickler::rawUnicode(std::string_view s) {
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

/// Runs one opcode; returns the result at STOP, else nullptr.
PickleValue* Unpickler::step() {
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
        fail("more than " + std::to_string(m_limits.maxMarks) + " MARKs open (the nesting limit)");
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
      PickleValue* v = make(code == kList ? Kind::List : code == kTuple ? Kind::Tuple : Kind::Set);
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

void Unpickler::addPairs(PickleValue* dict, const std::vector<PickleValue*>& items) {
  if (items.size() % 2) fail("a dict's items are not key, value pairs (an odd count)");
  for (size_t i = 0; i < items.size(); i += 2) dict->entries.emplace_back(items[i], items[i + 1]);
}

PickleValue* Unpickler::global(std::string module, std::string name) {
  if (module.empty() || name.empty() || module.size() > 256 || name.size() > 256)
    fail("a GLOBAL with an empty or overlong name");
  PickleValue* v = make(Kind::Global);
  v->module = std::move(module);
  v->name = std::move(name);
  return v;
}

// --- The finished graph ------------------------------------------------------------------
/// Walks everything reachable from `root` once, without recursion: refuses a cycle (a
/// container that contains itself) and a nesting deeper than the limit, and keeps only the
/// last value of a dict key written twice (as Python's dict does).
void Unpickler::checkGraph(PickleValue* root) {
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

void Unpickler::dedupeKeys(PickleValue* d) {
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

Result<PickleDocument> readPickle(std::string_view bytes, const std::string& file,
                                  const std::string& record, const PickleLimits& limits) {
  try {
    Unpickler u(bytes, limits);
    return u.run();
  } catch (const PickleRefusal& r) {
    return Error{file, 0, record, "at byte " + std::to_string(r.offset) + ": " + r.message};
  } catch (const std::bad_alloc&) {
    return Error{file, 0, record, "out of memory while reading the pickle"};
  }
}

}  // namespace stave::train
