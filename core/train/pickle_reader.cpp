#include "core/train/pickle_reader.h"

#include <charconv>
#include <cstdio>
#include <unordered_map>

#include "core/train/pickle_opcodes.h"
#include "core/train/pickle_unpickler.h"

namespace stave::train {
namespace {

using namespace pickle_op;
using Kind = PickleValue::Kind;
}  // namespace

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

Result<PickleDocument> readPickle(std::string_view bytes, const std::string& file,
                                  const std::string& record, const PickleLimits& limits) {
  try {
    Unpickler u(bytes, limits);
    return u.run();
  } catch (const PickleRefusal& r) {
    // The refusal's own words stay English (an argument): they name pickle opcodes and classes.
    return textError(file, 0, record,
                     Text("ckpt.at_byte", {{"offset", std::to_string(r.offset)}, {"detail", r.message}}));
  } catch (const std::bad_alloc&) {
    return textError(file, 0, record, Text("ckpt.pickle_oom"));
  }
}

}  // namespace stave::train
