#pragma once
// Test helpers for the pickle reader: a pickle assembled opcode by opcode (valid or hostile),
// torch.save-shaped zip archives written with libzip, and nn.Modules pickled as Python does
// (for synthetic Ultralytics checkpoints; the read-time benchmark uses them too).
#include <torch/torch.h>
#include <zip.h>

#include <functional>
#include <memory>
#include <unordered_map>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace stave::test {

/// A pickle assembled by hand. Each call appends opcodes; here() is the byte offset the next
/// opcode will have (what an error about it names).
class PickleBytes {
 public:
  explicit PickleBytes(int protocol = 2) {
    if (protocol >= 2) {
      op(0x80);
      op(uint8_t(protocol));
    }
  }
  size_t here() const { return m_b.size(); }
  PickleBytes& op(uint8_t c) {
    m_b.push_back(char(c));
    return *this;
  }
  PickleBytes& raw(const std::string& s) {
    m_b += s;
    return *this;
  }
  PickleBytes& le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) op(uint8_t(v >> (8 * i)));
    return *this;
  }
  PickleBytes& str(const std::string& s) {  // BINUNICODE
    op('X').le(s.size(), 4);
    return raw(s);
  }
  PickleBytes& shortStr(const std::string& s) {  // SHORT_BINUNICODE (protocol 4)
    op(0x8c).le(s.size(), 1);
    return raw(s);
  }
  PickleBytes& integer(int64_t v) {
    if (v >= 0 && v < 256) return op('K').op(uint8_t(v));
    if (v >= INT32_MIN && v <= INT32_MAX) return op('J').le(uint64_t(uint32_t(int32_t(v))), 4);
    return op(0x8a).op(8).le(uint64_t(v), 8);
  }
  PickleBytes& real(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    op('G');
    for (int i = 7; i >= 0; --i) op(uint8_t(bits >> (8 * i)));
    return *this;
  }
  PickleBytes& none() { return op('N'); }
  PickleBytes& boolean(bool b) { return op(b ? 0x88 : 0x89); }
  PickleBytes& global(const std::string& module, const std::string& name) {
    return op('c').raw(module + "\n" + name + "\n");
  }
  PickleBytes& mark() { return op('('); }
  PickleBytes& tuple() { return op('t'); }
  PickleBytes& emptyTuple() { return op(')'); }
  PickleBytes& emptyDict() { return op('}'); }
  PickleBytes& emptyList() { return op(']'); }
  PickleBytes& setItems() { return op('u'); }
  PickleBytes& appends() { return op('e'); }
  PickleBytes& reduce() { return op('R'); }
  PickleBytes& newObj() { return op(0x81); }
  PickleBytes& build() { return op('b'); }
  PickleBytes& put(uint32_t i) { return i < 256 ? op('q').op(uint8_t(i)) : op('r').le(i, 4); }
  PickleBytes& get(uint32_t i) { return i < 256 ? op('h').op(uint8_t(i)) : op('j').le(i, 4); }
  PickleBytes& orderedDict() { return global("collections", "OrderedDict").emptyTuple().reduce(); }
  /// A persistent id ('storage', torch.<type>, key, 'cpu', numel) and BINPERSID.
  PickleBytes& storage(const std::string& type, const std::string& key, int64_t numel) {
    mark().str("storage").global("torch", type).str(key).str("cpu").integer(numel).tuple();
    return op('Q');
  }
  /// torch._utils._rebuild_tensor_v2(storage, offset, sizes, strides, False, OrderedDict()).
  PickleBytes& tensor(const std::string& type, const std::string& key, int64_t numel,
                      int64_t offset, const std::vector<int64_t>& sizes,
                      const std::vector<int64_t>& strides) {
    global("torch._utils", "_rebuild_tensor_v2").mark();
    storage(type, key, numel).integer(offset);
    mark();
    for (auto s : sizes) integer(s);
    tuple().mark();
    for (auto s : strides) integer(s);
    tuple().boolean(false).orderedDict().tuple();
    return reduce();
  }
  /// `tensor` wrapped as torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict()).
  PickleBytes& parameter(const std::string& type, const std::string& key, int64_t numel,
                         const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
    global("torch._utils", "_rebuild_parameter").mark();
    tensor(type, key, numel, 0, sizes, strides);
    boolean(true).orderedDict().tuple();
    return reduce();
  }
  std::string done() const { return m_b + "."; }
  const std::string& bytes() const { return m_b; }

 private:
  std::string m_b;
};

/// Writes a zip archive of `records` (name, bytes) to `path`, stored uncompressed as torch.save
/// writes them (or compressed with `method`, as Python's zipfile may). Returns false (and says why
/// in `why`) if libzip fails.
inline bool writeZip(const std::string& path,
                     const std::vector<std::pair<std::string, std::string>>& records,
                     std::string* why = nullptr, int32_t method = ZIP_CM_STORE) {
  int code = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!za) {
    if (why) *why = "zip_open failed " + std::to_string(code);
    return false;
  }
  for (const auto& [name, bytes] : records) {
    zip_source_t* src = zip_source_buffer(za, bytes.data(), bytes.size(), 0);
    const zip_int64_t index = src ? zip_file_add(za, name.c_str(), src, ZIP_FL_OVERWRITE) : -1;
    if (index < 0 || zip_set_file_compression(za, zip_uint64_t(index), method, 0) != 0) {
      if (why) *why = zip_strerror(za);
      if (src && index < 0) zip_source_free(src);
      zip_discard(za);
      return false;
    }
  }
  if (zip_close(za) != 0) {
    if (why) *why = zip_strerror(za);
    zip_discard(za);
    return false;
  }
  return true;
}

/// A torch.save-shaped archive: <prefix>/data.pkl, the storages as <prefix>/data/<key>,
/// byteorder, version.
inline bool writeTorchZip(const std::string& path, const std::string& pickle,
                          const std::vector<std::pair<std::string, std::string>>& storages,
                          const std::string& prefix = "archive", std::string* why = nullptr) {
  std::vector<std::pair<std::string, std::string>> records;
  records.emplace_back(prefix + "/data.pkl", pickle);
  records.emplace_back(prefix + "/byteorder", "little");
  for (const auto& [key, bytes] : storages) records.emplace_back(prefix + "/data/" + key, bytes);
  records.emplace_back(prefix + "/version", "3\n");
  records.emplace_back(prefix + "/.data/serialization_id", "1234567890");
  return writeZip(path, records, why);
}

inline void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The bytes of `values` as stored in a tensor record.
template <typename T>
std::string bytesOf(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

inline const char* storageName(c10::ScalarType t) {
  switch (t) {
    case torch::kHalf:
      return "HalfStorage";
    case torch::kFloat:
      return "FloatStorage";
    case torch::kLong:
      return "LongStorage";
    default:
      return "ByteStorage";
  }
}

/// An nn.Module as Python pickles it, for the synthetic checkpoints.
struct FakeModule {
  std::string module, cls;
  std::vector<std::pair<std::string, torch::Tensor>> params, buffers;
  std::vector<std::string> nonPersistent;
  std::vector<std::pair<std::string, std::shared_ptr<FakeModule>>> children;
};

/// Writes checkpoints as Python pickles nn.Modules: a pickle and its storages.
class ModulePickler {
 public:
  PickleBytes p;
  std::vector<std::pair<std::string, std::string>> storages;

  void tensor(const torch::Tensor& t, bool parameter) {
    const auto c = t.contiguous();
    const std::string key = std::to_string(storages.size());
    storages.emplace_back(key, std::string(static_cast<const char*>(c.data_ptr()), c.nbytes()));
    const std::vector<int64_t> sizes(c.sizes().begin(), c.sizes().end());
    const std::vector<int64_t> strides(c.strides().begin(), c.strides().end());
    if (parameter)
      p.parameter(storageName(c.scalar_type()), key, c.numel(), sizes, strides);
    else
      p.tensor(storageName(c.scalar_type()), key, c.numel(), 0, sizes, strides);
  }

  /// Python's pickling of an object: NEWOBJ of its class, its __dict__ by BUILD. A module met
  /// before is a memo get, as the pickler writes a shared object.
  void module(const std::shared_ptr<FakeModule>& m,
              const std::function<void(ModulePickler&)>& attributes = {}) {
    if (auto it = m_memo.find(m.get()); it != m_memo.end()) {
      p.get(it->second);
      return;
    }
    p.global(m->module, m->cls).emptyTuple().newObj();
    const uint32_t index = m_next++;
    p.put(index);
    m_memo[m.get()] = index;
    p.emptyDict().mark();
    p.str("training").boolean(false);
    p.str("_parameters").orderedDict().mark();
    for (const auto& [n, t] : m->params) {
      p.str(n);
      if (t.defined())
        tensor(t, true);
      else
        p.none();
    }
    p.setItems();
    p.str("_buffers").orderedDict().mark();
    for (const auto& [n, t] : m->buffers) {
      p.str(n);
      tensor(t, false);
    }
    p.setItems();
    p.str("_non_persistent_buffers_set").global("__builtin__", "set").mark().emptyList().mark();
    for (const auto& n : m->nonPersistent) p.str(n);
    p.appends().tuple().reduce();
    p.str("_forward_hooks").orderedDict();
    p.str("_modules").orderedDict().mark();
    for (const auto& [n, c] : m->children) {
      p.str(n);
      module(c);
    }
    p.setItems();
    if (attributes) attributes(*this);
    p.setItems().build();
  }

  /// numpy.float64(v) as numpy 2 pickles it (protocol 2: its bytes through _codecs.encode).
  void numpyFloat(double v) {
    p.global("numpy._core.multiarray", "scalar").mark();
    p.global("numpy", "dtype").mark().str("f8").boolean(false).boolean(true).tuple().reduce();
    p.mark()
        .integer(3)
        .str("<")
        .none()
        .none()
        .none()
        .integer(-1)
        .integer(-1)
        .integer(0)
        .tuple()
        .build();
    std::string raw(8, '\0');
    std::memcpy(raw.data(), &v, 8);
    std::string latin1;  // the bytes as the code points of a str, in UTF-8
    for (unsigned char c : raw) {
      if (c < 0x80)
        latin1 += char(c);
      else {
        latin1 += char(0xc0 | (c >> 6));
        latin1 += char(0x80 | (c & 0x3f));
      }
    }
    p.global("_codecs", "encode").mark().str(latin1).str("latin1").tuple().reduce();
    p.tuple().reduce();
  }

  bool save(const std::string& path) { return writeTorchZip(path, p.done(), storages); }

 private:
  std::unordered_map<const FakeModule*, uint32_t> m_memo;
  uint32_t m_next = 0;
};

inline std::shared_ptr<FakeModule> leaf(const char* module, const char* cls) {
  auto m = std::make_shared<FakeModule>();
  m->module = module;
  m->cls = cls;
  return m;
}

}  // namespace stave::test
