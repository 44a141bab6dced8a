// The unpickler's values and text: storage element types, PickleValue's accessors, the
// decoders of protocol 0's and LONG's text forms, and the checks of the finished value graph
// (acyclic, bounded depth, one entry per dict key). The opcode loop is pickle_reader.cpp.
#include <charconv>
#include <string>
#include <unordered_map>

#include "core/train/pickle_unpickler.h"

namespace stave::train {
namespace {

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

}  // namespace stave::train
