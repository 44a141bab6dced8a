// The constructors of data the unpickler allows (pickle_unpickler.h): REDUCE of a fixed list
// of callables that make data, NEWOBJ of classes read as records, the persistent ids of
// storages and the tensors rebuilt on them. Nothing here calls anything named in a pickle.
#include <cstring>

#include <c10/util/Half.h>

#include "core/train/pickle_unpickler.h"

namespace stave::train {
namespace {

using Kind = PickleValue::Kind;

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

}  // namespace

PickleValue* Unpickler::newObject(const char* how, const PickleValue* cls,
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

void Unpickler::refuseCall(const PickleValue* callable, const std::string& why) {
  fail("refused: REDUCE of " + callable->qualifiedName() + " — " + why + "; nothing was run");
}

/// REDUCE: callable(*args), for the data constructors on the list only.
PickleValue* Unpickler::reduce(PickleValue* callable, PickleValue* argsValue) {
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
  if (m == "torch._utils" && (n == "_rebuild_parameter" || n == "_rebuild_parameter_with_state")) {
    argCount(n == "_rebuild_parameter" ? 3 : 4, n == "_rebuild_parameter" ? 3 : 4);
    if (args[0]->kind != Kind::Tensor) fail(n + " of a " + args[0]->describe() + ", not a tensor");
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
  if (m == "pathlib" && (n == "Path" || n == "PosixPath" || n == "WindowsPath" || n == "PurePath" ||
                         n == "PurePosixPath" || n == "PureWindowsPath"))
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
std::vector<PickleValue*> Unpickler::sequence(const PickleValue* v) {
  if (v->kind != Kind::List && v->kind != Kind::Tuple && v->kind != Kind::Set)
    fail("a " + v->describe() + " where a list or tuple was expected");
  return v->items;
}

bool Unpickler::truthy(const PickleValue* v) {
  return (v->kind == Kind::Bool && v->boolean) || (v->kind == Kind::Int && v->integer != 0);
}

PickleValue* Unpickler::latin1Bytes(const std::string& utf8) {
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
PickleValue* Unpickler::numpyScalar(const PickleValue* callable,
                                    const std::vector<PickleValue*>& args) {
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

PickleValue* Unpickler::real(double d) {
  PickleValue* v = make(Kind::Float);
  v->real = d;
  return v;
}

/// BINPERSID: ('storage', torch.<Type>Storage, key, location, numel).
PickleValue* Unpickler::persistentLoad(const PickleValue* pid) {
  if (pid->kind != Kind::Tuple || pid->items.size() != 5 || pid->items[0]->kind != Kind::Str ||
      pid->items[0]->text != "storage")
    fail("a persistent id that is not ('storage', type, key, location, numel)");
  const PickleValue* type = pid->items[1];
  const PickleValue* key = pid->items[2];
  const PickleValue* location = pid->items[3];
  const PickleValue* numel = pid->items[4];
  PickleStorage s;
  if (type->kind != Kind::Global || !(type->module == "torch" || type->module == "torch.storage") ||
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
           storageDTypeName(s.dtype) + " elements, first as " + std::to_string(before.numel) + " " +
           storageDTypeName(before.dtype) + " (a dtype or size mismatch)");
  }
  PickleValue* v = make(Kind::Storage);
  v->tensor.storage = std::move(s);
  return v;
}

/// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, meta]).
PickleValue* Unpickler::rebuildTensor(const std::vector<PickleValue*>& args) {
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
    overflow = overflow ||
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

}  // namespace stave::train
