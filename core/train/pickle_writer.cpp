#include "core/train/pickle_writer.h"

#include <caffe2/serialize/inline_container.h>

#include <cstring>

#include "core/base/result.h"
#include "core/train/pickle_opcodes.h"

namespace stave::train {
namespace {

using namespace pickle_op;

const char* storageType(c10::ScalarType t) {
  switch (t) {
    case torch::kFloat: return "FloatStorage";
    case torch::kDouble: return "DoubleStorage";
    case torch::kHalf: return "HalfStorage";
    case torch::kBFloat16: return "BFloat16Storage";
    case torch::kLong: return "LongStorage";
    case torch::kInt: return "IntStorage";
    case torch::kByte: return "ByteStorage";
    case torch::kBool: return "BoolStorage";
    default: break;
  }
  throw InternalError(std::string("PickleWriter: no storage type for ") + c10::toString(t));
}

}  // namespace

PickleWriter::PickleWriter() {
  op(kProto);
  op(2);
}

void PickleWriter::op(uint8_t code) {
  m_pickle.push_back(static_cast<char>(code));
}

void PickleWriter::raw(const void* data, size_t n) {
  m_pickle.append(static_cast<const char*>(data), n);
}

void PickleWriter::u32(uint32_t v) {
  const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  raw(b, 4);
}

void PickleWriter::none() { op(kNone); }

void PickleWriter::boolean(bool v) { op(v ? kNewTrue : kNewFalse); }

void PickleWriter::integer(int64_t v) {
  if (v >= 0 && v < 256) {
    op(kBinInt1);
    op(static_cast<uint8_t>(v));
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    op(kBinInt);
    u32(static_cast<uint32_t>(static_cast<int32_t>(v)));
  } else {
    // LONG1: little-endian two's complement in 8 bytes.
    op(kLong1);
    op(8);
    const uint64_t u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) op(static_cast<uint8_t>(u >> (8 * i)));
  }
}

void PickleWriter::real(double v) {
  op(kBinFloat);
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int i = 7; i >= 0; --i) op(static_cast<uint8_t>(bits >> (8 * i)));  // big-endian
}

void PickleWriter::string(const std::string& utf8) {
  op(kBinUnicode);
  u32(static_cast<uint32_t>(utf8.size()));
  raw(utf8.data(), utf8.size());
}

void PickleWriter::global(const std::string& module, const std::string& name) {
  op(kGlobal);
  raw(module.data(), module.size());
  op('\n');
  raw(name.data(), name.size());
  op('\n');
}

void PickleWriter::mark() { op(kMark); }
void PickleWriter::tupleFromMark() { op(kTuple); }
void PickleWriter::beginList() {
  op(kEmptyList);
  op(kMark);
}
void PickleWriter::endList() { op(kAppends); }
void PickleWriter::beginDict() {
  op(kEmptyDict);
  op(kMark);
}
void PickleWriter::endDict() { op(kSetItems); }
void PickleWriter::reduce() { op(kReduce); }
void PickleWriter::pop() { op(kPop); }

void PickleWriter::emptyOrderedDict() {
  global("collections", "OrderedDict");
  op(kEmptyTuple);
  reduce();
}

uint32_t PickleWriter::memoize() {
  const uint32_t index = m_memo++;
  if (index < 256) {
    op(kBinPut);
    op(static_cast<uint8_t>(index));
  } else {
    op(kLongBinPut);
    u32(index);
  }
  return index;
}

void PickleWriter::memoGet(uint32_t index) {
  STAVE_CHECK(index < m_memo, "PickleWriter::memoGet: nothing remembered at that index");
  if (index < 256) {
    op(kBinGet);
    op(static_cast<uint8_t>(index));
  } else {
    op(kLongBinGet);
    u32(index);
  }
}

void PickleWriter::tensor(const torch::Tensor& t) {
  const auto c = t.detach().to(torch::kCPU).contiguous();
  const std::string key = std::to_string(m_storages.size());
  m_storages.emplace_back(key, std::string(static_cast<const char*>(c.data_ptr()), c.nbytes()));
  global("torch._utils", "_rebuild_tensor_v2");
  mark();
  {
    // The storage: a persistent id torch.load resolves to the record data/<key>.
    mark();
    string("storage");
    global("torch", storageType(c.scalar_type()));
    string(key);
    string("cpu");
    integer(c.numel());
    tupleFromMark();
    op(kBinPersId);
    integer(0);  // storage offset
    mark();
    for (auto s : c.sizes()) integer(s);
    tupleFromMark();
    mark();
    for (auto s : c.strides()) integer(s);
    tupleFromMark();
    boolean(false);      // requires_grad
    emptyOrderedDict();  // backward hooks
  }
  tupleFromMark();
  reduce();
}

std::string PickleWriter::archive() {
  std::string out;
  {
    caffe2::serialize::PyTorchStreamWriter writer([&out](const void* data, size_t n) {
      out.append(static_cast<const char*>(data), n);
      return n;
    });
    const std::string pkl = m_pickle + static_cast<char>(kStop);
    writer.writeRecord("data.pkl", pkl.data(), pkl.size());
    writer.writeRecord(".format_version", "1", 1);
    writer.writeRecord("byteorder", "little", 6);
    for (const auto& [key, bytes] : m_storages)
      writer.writeRecord("data/" + key, bytes.data(), bytes.size());
    writer.writeEndOfFile();
  }
  return out;
}

}  // namespace stave::train
