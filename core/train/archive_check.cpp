#include "core/train/archive_check.h"

#include <zip.h>

#include <memory>
#include <vector>

namespace stave::train {

Text zipReason(int code, const std::string& english) {
  switch (code) {
    case ZIP_ER_NOZIP: return Text("zip.not_zip");
    case ZIP_ER_INCONS: return Text("zip.inconsistent");
    case ZIP_ER_CRC: return Text("zip.crc");
    case ZIP_ER_EOF: return Text("zip.eof");
    case ZIP_ER_COMPRESSED_DATA: return Text("zip.compressed");
    default: return Text("plain", {{"text", english}});
  }
}

Status readRecordChecked(const std::string& path, zip_t* za, uint64_t index,
                         const std::string& record, const char* noun, void* dst, uint64_t size) {
  const Text nounText(std::string("ckpt.noun.") + noun);
  zip_file_t* f = zip_fopen_index(za, index, 0);
  if (!f)
    return textError(path, 0, record,
                     Text("ckpt.damaged.unreadable",
                          {{"noun", nounText}, {"detail", zipReason(zip_error_code_zip(zip_get_error(za)), zip_strerror(za))}}));
  std::vector<char> sink(dst ? 1 : 1 << 16);
  uint64_t done = 0;
  zip_int64_t got = 1;
  while (got > 0) {
    if (dst && done < size) {
      got = zip_fread(f, static_cast<char*>(dst) + done, size - done);
      if (got > 0) done += uint64_t(got);
      continue;
    }
    got = zip_fread(f, sink.data(), sink.size());
    if (got > 0 && dst) {
      zip_fclose(f);
      return textError(path, 0, record, Text("ckpt.damaged.longer", {{"noun", nounText}}));
    }
  }
  std::string why;
  int code = 0;
  if (got < 0) {
    why = zip_error_strerror(zip_file_get_error(f));
    code = zip_error_code_zip(zip_file_get_error(f));
  }
  zip_fclose(f);
  if (got < 0)
    return textError(path, 0, record,
                     Text("ckpt.damaged.bytes", {{"noun", nounText}, {"detail", zipReason(code, why)}}));
  if (dst && done != size)
    return textError(path, 0, record,
                     Text("ckpt.damaged.short", {{"noun", nounText},
                                                 {"done", std::to_string(done)},
                                                 {"size", std::to_string(size)}}));
  return Ok{};
}

Status verifyArchive(const std::string& path, const std::string& bytes) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  if (!src) {
    const std::string why = zip_error_strerror(&err);
    zip_error_fini(&err);
    return textError(path, 0, "", Text("ckpt.cannot_check", {{"detail", why}}));
  }
  // ZIP_CHECKCONS: the central directory must agree with the local headers.
  zip_t* za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (!za) {
    const std::string why = zip_error_strerror(&err);
    const int code = zip_error_code_zip(&err);
    zip_source_free(src);
    zip_error_fini(&err);
    return textError(path, 0, "", Text("ckpt.not_complete", {{"detail", zipReason(code, why)}}));
  }
  zip_error_fini(&err);
  std::unique_ptr<zip_t, void (*)(zip_t*)> owner(za, [](zip_t* z) { zip_discard(z); });
  const zip_int64_t n = zip_get_num_entries(za, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(za, static_cast<zip_uint64_t>(i), 0);
    const std::string record = name ? name : "#" + std::to_string(i);
    if (auto s = readRecordChecked(path, za, static_cast<uint64_t>(i), record, "checkpoint"); !s)
      return s;
  }
  return Ok{};
}

}  // namespace stave::train
