#include "core/train/torch_archive.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/base/bounded_read.h"
#include "core/train/archive_check.h"

namespace stave::train {
namespace {

// torch.save(..., _use_new_zipfile_serialization=False) starts with the pickled magic number
// 0x1950a86a20f9469cfc6c (PROTO 2, LONG1 of 10 bytes).
constexpr unsigned char kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                          0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
constexpr unsigned char kZipMagic[] = {'P', 'K', 0x03, 0x04};

using ZipPtr = std::unique_ptr<zip_t, void (*)(zip_t*)>;

/// What the file starts with.
enum class Head { Zip, Legacy, Other };

Head headOf(int fd) {
  unsigned char head[sizeof kLegacyMagic] = {};
  const ssize_t got = pread(fd, head, sizeof head, 0);
  if (got >= ssize_t(sizeof kZipMagic) && std::memcmp(head, kZipMagic, sizeof kZipMagic) == 0)
    return Head::Zip;
  if (got == ssize_t(sizeof kLegacyMagic) && std::memcmp(head, kLegacyMagic, sizeof head) == 0)
    return Head::Legacy;
  return Head::Other;
}

/// Opens `path` as a zip archive (the descriptor then belongs to the archive).
Result<ZipPtr> openZip(const std::string& path, int fd, int flags) {
  int code = 0;
  zip_t* za = zip_fdopen(fd, flags, &code);
  if (!za) {
    close(fd);
    zip_error_t err;
    zip_error_init_with_code(&err, code);
    const std::string why = zip_error_strerror(&err);
    zip_error_fini(&err);
    return textError(path, 0, "", Text("ckpt.not_complete_zip", {{"detail", zipReason(code, why)}}));
  }
  return ZipPtr(za, [](zip_t* z) { zip_discard(z); });
}

struct Entries {
  std::vector<std::string> names;
  std::string prefix;  // of <prefix>/data.pkl
  bool torchScript = false;
};

Entries listEntries(zip_t* za) {
  Entries e;
  const zip_int64_t n = zip_get_num_entries(za, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(za, zip_uint64_t(i), 0);
    e.names.emplace_back(name ? name : "");
    const std::string& s = e.names.back();
    const size_t slash = s.find('/');
    if (slash == std::string::npos) continue;
    const std::string rest = s.substr(slash + 1);
    if (rest == "data.pkl" && e.prefix.empty()) e.prefix = s.substr(0, slash);
    if (rest == "constants.pkl" || rest.compare(0, 5, "code/") == 0) e.torchScript = true;
  }
  return e;
}

Result<uint64_t> recordSize(const std::string& path, zip_t* za, zip_uint64_t index,
                            const std::string& name) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(za, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    return textError(path, 0, name, Text("ckpt.no_size", {{"detail", zip_strerror(za)}}));
  return uint64_t(st.size);
}

/// torch.save stores records uncompressed; a zip written otherwise (Python's zipfile) may
/// deflate them. A compressed record's size is only what its directory claims: all of them
/// together may expand to at most this many times the file (or kMinExpansionBytes).
constexpr uint64_t kMaxExpansion = 64;
constexpr uint64_t kMinExpansionBytes = uint64_t(16) << 20;

/// Refuses an archive whose compressed records claim more bytes than kMaxExpansion allows
/// (a zip bomb: a small file that would make the reader allocate or inflate gigabytes).
Status checkExpansion(const std::string& path, zip_t* za, size_t entries, uint64_t fileBytes) {
  uint64_t expanded = 0;
  for (size_t i = 0; i < entries; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, zip_uint64_t(i), 0, &st) != 0) continue;  // read later, and refused
    if ((st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method != ZIP_CM_STORE &&
        (st.valid & ZIP_STAT_SIZE))
      expanded += uint64_t(st.size);
  }
  const uint64_t cap = std::max(kMaxExpansion * fileBytes, kMinExpansionBytes);
  if (expanded > cap)
    return textError(path, 0, "",
                     Text("ckpt.expansion", {{"expanded", std::to_string(expanded)},
                                             {"factor", std::to_string(kMaxExpansion)},
                                             {"bytes", std::to_string(fileBytes)}}));
  return Ok{};
}

}  // namespace

const char* checkpointKindName(CheckpointKind k) {
  switch (k) {
    case CheckpointKind::Stave:
      return "a Stave checkpoint (TorchScript archive)";
    case CheckpointKind::TorchSave:
      return "a torch.save archive (PyTorch / Ultralytics .pt)";
    case CheckpointKind::LegacyTorchSave:
      return "a torch.save file in PyTorch's format before 1.6";
    case CheckpointKind::Unknown:
      return "not a checkpoint";
  }
  return "?";
}

Result<CheckpointKind> checkpointKind(const std::string& path) {
  std::string why;
  const int fd = openRegularFile(path, &why);
  if (fd < 0) return Error{path, 0, "", why};
  const Head head = headOf(fd);
  if (head != Head::Zip) {
    close(fd);
    return head == Head::Legacy ? CheckpointKind::LegacyTorchSave : CheckpointKind::Unknown;
  }
  auto za = openZip(path, fd, ZIP_RDONLY);
  if (!za) return CheckpointKind::Unknown;
  const Entries e = listEntries(za.value().get());
  if (e.torchScript) return CheckpointKind::Stave;
  if (!e.prefix.empty()) return CheckpointKind::TorchSave;
  return CheckpointKind::Unknown;
}

torch::Tensor TorchArchive::tensor(const PickleValue& v) const {
  STAVE_CHECK(v.kind == PickleValue::Kind::Tensor, "TorchArchive::tensor of a " << v.describe());
  const auto it = storages.find(v.tensor.storage.key);
  STAVE_CHECK(it != storages.end(),
              "TorchArchive::tensor: storage " << v.tensor.storage.key << " was not read");
  // Bounds were checked when the pickle was read; the storage's size when its record was.
  return it->second.as_strided(v.tensor.sizes, v.tensor.strides, v.tensor.storageOffset);
}

Result<TorchArchive> readTorchArchive(const std::string& path, const PickleLimits& limits) {
  std::string why;
  const int fd = openRegularFile(path, &why);
  if (fd < 0) return Error{path, 0, "", why};
  const Head head = headOf(fd);
  if (head != Head::Zip) {
    close(fd);
    if (head == Head::Legacy) return textError(path, 0, "", Text("ckpt.legacy"));
    return textError(path, 0, "", Text("ckpt.not_zip"));
  }
  struct stat st {};
  const uint64_t fileBytes = fstat(fd, &st) == 0 ? uint64_t(st.st_size) : 0;
  // ZIP_CHECKCONS: the central directory must agree with the local headers.
  auto opened = openZip(path, fd, ZIP_RDONLY | ZIP_CHECKCONS);
  if (!opened) return opened.errors();
  zip_t* za = opened.value().get();
  const Entries entries = listEntries(za);
  if (entries.torchScript)
    return textError(path, 0, "", Text("ckpt.torchscript"));
  if (entries.prefix.empty())
    return textError(path, 0, "", Text("ckpt.no_data_pkl"));
  if (auto s = checkExpansion(path, za, entries.names.size(), fileBytes); !s) return s.errors();

  TorchArchive out;
  out.path = path;
  out.prefix = entries.prefix;
  const std::string pklName = entries.prefix + "/data.pkl";
  const zip_int64_t pklIndex = zip_name_locate(za, pklName.c_str(), 0);
  if (pklIndex < 0) return textError(path, 0, pklName, Text("ckpt.record_missing"));
  auto pklSize = recordSize(path, za, zip_uint64_t(pklIndex), pklName);
  if (!pklSize) return pklSize.errors();
  if (pklSize.value() > limits.maxPickleBytes)
    return textError(path, 0, pklName,
                     Text("ckpt.pickle_too_big", {{"size", std::to_string(pklSize.value())},
                                                  {"limit", std::to_string(limits.maxPickleBytes)}}));
  std::string pkl(size_t(pklSize.value()), '\0');
  if (auto s = readRecordChecked(path, za, zip_uint64_t(pklIndex), pklName, "archive", pkl.data(),
                                 pkl.size());
      !s)
    return s.errors();
  auto doc = readPickle(pkl, path, pklName, limits);
  if (!doc) return doc.errors();
  out.pickle = std::move(doc.value());
  pkl = std::string();

  // Each storage's record, found by name before anything large is read.
  std::unordered_map<zip_uint64_t, const PickleStorage*> byIndex;
  for (const PickleStorage& s : out.pickle.storages()) {
    const std::string name = entries.prefix + "/data/" + s.key;
    const zip_int64_t index = zip_name_locate(za, name.c_str(), 0);
    if (index < 0)
      return textError(path, 0, pklName,
                       Text("ckpt.no_storage_record",
                            {{"offset", std::to_string(s.offset)}, {"key", s.key}, {"name", name}}));
    auto size = recordSize(path, za, zip_uint64_t(index), name);
    if (!size) return size.errors();
    const uint64_t want = uint64_t(s.numel) * storageElementSize(s.dtype);
    if (size.value() != want)
      return Error{path, 0, name,
                   "the record holds " + std::to_string(size.value()) +
                       " bytes, but data.pkl (at byte " + std::to_string(s.offset) + ") declares " +
                       std::to_string(s.numel) + " " + storageDTypeName(s.dtype) + " elements (" +
                       std::to_string(want) + " bytes)"};
    byIndex.emplace(zip_uint64_t(index), &s);
  }

  // Every record once, in the archive's order: storages into their tensors, the rest only for
  // their CRC-32.
  for (size_t i = 0; i < entries.names.size(); ++i) {
    const zip_uint64_t index = zip_uint64_t(i);
    const std::string& name = entries.names[i];
    if (zip_int64_t(i) == pklIndex) continue;
    if (auto it = byIndex.find(index); it != byIndex.end()) {
      const PickleStorage& s = *it->second;
      torch::Tensor t;
      try {
        t = torch::empty({s.numel}, torch::TensorOptions().dtype(toScalarType(s.dtype)));
      } catch (const std::exception&) {
        return Error{path, 0, name, "out of memory for " + std::to_string(s.numel) + " elements"};
      }
      if (auto st = readRecordChecked(path, za, index, name, "archive", t.data_ptr(), t.nbytes());
          !st)
        return st.errors();
      out.storages.emplace(s.key, std::move(t));
    } else if (name == entries.prefix + "/byteorder") {
      char order[16] = {};
      auto size = recordSize(path, za, index, name);
      if (!size) return size.errors();
      if (size.value() > sizeof order) return Error{path, 0, name, "not 'little' or 'big'"};
      if (auto st = readRecordChecked(path, za, index, name, "archive", order, size.value()); !st)
        return st.errors();
      const std::string value(order, size_t(size.value()));
      if (value != "little")
        return Error{path, 0, name,
                     "the tensors are stored '" + value +
                         "'-endian; Stave reads little-endian archives only"};
    } else if (auto st = readRecordChecked(path, za, index, name, "archive"); !st) {
      return st.errors();
    }
  }
  return out;
}

}  // namespace stave::train
