#pragma once
// Reads what Python's torch.save() writes — a zip archive holding a pickle (data.pkl) whose
// tensors live in separate storage records — without Python and without running anything.
//
// The unpickler is Stave's own and restricted: a GLOBAL is only a name (module + name), never
// a callable; REDUCE and NEWOBJ build plain data records and are allowed only for a fixed list
// of constructors that make data (collections.OrderedDict, set, the tensor rebuilders, numpy
// scalars, classes of ultralytics.* and torch.* as records of their state, ...). Anything else
// — os.system, builtins.eval, getattr, an unknown callable — is an error naming the file, the
// byte offset in the pickle and the global. Every count is bounded (PickleLimits), and the
// finished value graph is checked to be acyclic and no deeper than the limit, so a recursive
// walk over it always ends.

#include <c10/core/ScalarType.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/result.h"

namespace stave::train {

/// Limits of the unpickler; a file past any of them is refused with an error naming the limit.
struct PickleLimits {
  /// The most bytes of one pickle (data.pkl); yolo11x's with its optimizer state is ~1 MB.
  size_t maxPickleBytes = size_t{64} << 20;
  /// The most values the pickle may make (every int, str, list, tensor, ... counts one).
  size_t maxValues = size_t{1} << 21;
  /// The most entries on the unpickler's stack at once.
  size_t maxStack = size_t{1} << 20;
  /// The most MARKs open at once.
  size_t maxMarks = 1000;
  /// The most memo entries.
  size_t maxMemo = size_t{1} << 21;
  /// The most bytes of all strings and bytes objects together.
  size_t maxTextBytes = size_t{64} << 20;
  /// The deepest nesting of the finished value (a list in a list in ... counts one per level).
  size_t maxDepth = 1000;
  /// The most dimensions of one tensor.
  size_t maxTensorDims = 64;
};

/// Element types of tensor storages (torch.<Name>Storage; UntypedStorage is Byte).
enum class StorageDType { Half, Float, BFloat16, Double, Long, Int, Short, Char, Byte, Bool };

/// Bytes per element of `t`.
size_t storageElementSize(StorageDType t);
/// "float32", "float16", ... (torch's names).
const char* storageDTypeName(StorageDType t);
/// The LibTorch scalar type of `t`.
c10::ScalarType toScalarType(StorageDType t);

/// A storage named by a persistent id: ('storage', torch.<Type>Storage, key, location, numel).
struct PickleStorage {
  std::string key;  ///< the record data/<key>
  StorageDType dtype = StorageDType::Byte;
  int64_t numel = 0;     ///< elements the pickle declares (checked against the record's size)
  std::string location;  ///< "cpu", "cuda:0", ...: where it was saved; Stave reads it to the CPU
  size_t offset = 0;     ///< byte offset in the pickle of the persistent id that first names it
};

/// A tensor made by torch._utils._rebuild_tensor_v2 / _rebuild_parameter: a view of a storage.
struct PickleTensor {
  PickleStorage storage;
  int64_t storageOffset = 0;  ///< in elements
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  ///< in elements; never negative
  bool requiresGrad = false;
  bool parameter = false;  ///< rebuilt as a torch.nn.Parameter
};

/// One value of the pickle. Containers point at other values of the same PickleDocument.
struct PickleValue {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    Str,      ///< `text` (UTF-8 as written)
    Bytes,    ///< `text` (raw bytes)
    List,     ///< `items`
    Tuple,    ///< `items`
    Set,      ///< `items` (set and frozenset)
    Dict,     ///< `entries`, in order (dict and collections.OrderedDict)
    Global,   ///< `module` + `name`: only a name, never called
    Object,   ///< an instance of `module`.`name`: `items` its constructor args, `state` from BUILD
    Storage,  ///< a persistent id: `tensor.storage`
    Tensor,   ///< `tensor`
  };
  Kind kind = Kind::None;
  size_t offset = 0;  ///< byte offset in the pickle of the opcode that made it
  size_t id = 0;      ///< its position among the document's values (0, 1, ...)
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;
  std::string module, name;
  std::vector<PickleValue*> items;
  std::vector<std::pair<PickleValue*, PickleValue*>> entries;
  PickleValue* state = nullptr;
  PickleTensor tensor;

  bool isNone() const { return kind == Kind::None; }
  bool isStr() const { return kind == Kind::Str; }
  bool isDict() const { return kind == Kind::Dict; }
  /// A Dict's value for the string key `key`, or nullptr (also when this is no Dict).
  const PickleValue* find(std::string_view key) const;
  /// "module.name" of a Global or Object.
  std::string qualifiedName() const { return module + "." + name; }
  /// "None", "int", "str", "list", "dict", "object ultralytics.nn.tasks.DetectionModel", ...
  std::string describe() const;
};

/// The values of one pickle; `root()` is what STOP returned. Acyclic and at most
/// PickleLimits::maxDepth deep (checked when it is read).
class PickleDocument {
 public:
  const PickleValue& root() const { return *m_root; }
  /// Every storage the pickle names (one entry per distinct key, in order of first use).
  const std::vector<PickleStorage>& storages() const { return m_storages; }
  /// How many values were made.
  size_t valueCount() const { return m_values ? m_values->size() : 0; }

 private:
  friend class Unpickler;
  std::shared_ptr<std::deque<PickleValue>> m_values;
  const PickleValue* m_root = nullptr;
  std::vector<PickleStorage> m_storages;
};

/// Unpickles `bytes` (protocols 0–5, the opcodes torch.save and Python's pickler emit).
/// `file` and `record` name where the bytes came from in errors ("FILE: RECORD: at byte N: ...").
Result<PickleDocument> readPickle(std::string_view bytes, const std::string& file,
                                  const std::string& record = "data.pkl",
                                  const PickleLimits& limits = {});

}  // namespace stave::train
