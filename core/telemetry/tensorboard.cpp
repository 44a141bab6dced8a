#include "core/telemetry/tensorboard.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/base/host_name.h"

namespace fs = std::filesystem;

namespace stave::telemetry {

namespace {

// CRC-32C, reflected polynomial 0x82F63B78, one table of 256 entries built once.
const std::array<uint32_t, 256>& crcTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// TFRecord's masked CRC: rotated and offset, so that a CRC of CRCs is not trivially zero.
uint32_t maskedCrc(const void* data, size_t size) {
  const uint32_t c = crc32c(data, size);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

void putLittle(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Protocol-buffer wire format: the handful of field kinds tensorflow.Event needs.
void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void putTag(std::string& out, int field, int wire) { putVarint(out, (uint64_t(field) << 3) | wire); }
void putDouble(std::string& out, int field, double v) {
  putTag(out, field, 1);
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  putLittle(out, bits, 8);
}
void putFloat(std::string& out, int field, float v) {
  putTag(out, field, 5);
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  putLittle(out, bits, 4);
}
void putInt64(std::string& out, int field, int64_t v) {
  putTag(out, field, 0);
  putVarint(out, static_cast<uint64_t>(v));
}
void putBytes(std::string& out, int field, const std::string& bytes) {
  putTag(out, field, 2);
  putVarint(out, bytes.size());
  out += bytes;
}

// tensorflow.Event: wall_time = 1, step = 2, file_version = 3, summary = 5.
// tensorflow.Summary: value = 1 (repeated); Summary.Value: tag = 1, simple_value = 2.
std::string scalarEvent(const std::string& tag, int64_t step, float value, double wallTime) {
  std::string v;
  putBytes(v, 1, tag);
  putFloat(v, 2, value);
  std::string summary;
  putBytes(summary, 1, v);
  std::string e;
  putDouble(e, 1, wallTime);
  putInt64(e, 2, step);
  putBytes(e, 5, summary);
  return e;
}

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  const auto& t = crcTable();
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < size; ++i) c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

Result<std::unique_ptr<TensorBoardWriter>> TensorBoardWriter::open(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{dir, 0, "", "cannot create the TensorBoard folder: " + ec.message()};
  std::string host = hostName();
  if (host.empty()) host = "localhost";
  const double now = unixTimeNow();
  // The name TensorBoard looks for ("tfevents"), unique per process start.
  const std::string name = "events.out.tfevents." + std::to_string(static_cast<int64_t>(now)) +
                           "." + host + "." + std::to_string(getpid()) + ".stave";
  std::unique_ptr<TensorBoardWriter> w(new TensorBoardWriter);
  w->m_path = (fs::path(dir) / name).string();
  w->m_file = std::fopen(w->m_path.c_str(), "abe");
  if (!w->m_file)
    return Error{w->m_path, 0, "", std::string("cannot create: ") + std::strerror(errno)};
  std::string first;
  putDouble(first, 1, now);
  putBytes(first, 3, "brain.Event:2");
  w->record(first);
  w->flush();
  return w;
}

TensorBoardWriter::~TensorBoardWriter() {
  if (m_file) std::fclose(m_file);
}

void TensorBoardWriter::record(const std::string& payload) {
  // TFRecord: length (u64 LE), masked CRC of the length, payload, masked CRC of the payload.
  std::string frame;
  putLittle(frame, payload.size(), 8);
  const uint32_t lenCrc = maskedCrc(frame.data(), 8);
  putLittle(frame, lenCrc, 4);
  frame += payload;
  putLittle(frame, maskedCrc(payload.data(), payload.size()), 4);
  if (std::fwrite(frame.data(), 1, frame.size(), m_file) != frame.size()) ++m_failures;
}

void TensorBoardWriter::flush() {
  if (m_file && std::fflush(m_file) != 0) ++m_failures;
}

void TensorBoardWriter::scalar(const std::string& tag, int64_t step, double value, double wallTime) {
  if (!std::isfinite(value)) return;
  record(scalarEvent(tag, step, static_cast<float>(value), wallTime));
}

TensorBoardWriter::TensorBoardWriter() {
  m_dispatch
      .on<StepEvent>([this](const Event& e, const StepEvent& s) {
        if (e.rank != 0) return;  // the curves are rank 0's, as in events.jsonl's readers
        for (const auto& [key, value] : metricsOf(s)) scalar(key, globalStep(s), value, e.time);
        flush();
      })
      .on<EpochEndEvent>([this](const Event& e, const EpochEndEvent& s) {
        for (const auto& [key, value] : metricsOf(s)) scalar(key, s.epoch + 1, value, e.time);
        flush();
      })
      .on<ValidationEvent>([this](const Event& e, const ValidationEvent& v) {
        for (const auto& [key, value] : metricsOf(v)) scalar(key, v.epoch + 1, value, e.time);
        flush();
      })
      .onRaw(event_type::kGpuSample, [this](const Event& e) { writeSamples(e); })
      .onRaw(event_type::kSystemSample, [this](const Event& e) { writeSamples(e); });
}

void TensorBoardWriter::writeSamples(const Event& e) {
  // Every number of the sample as it is: gpu/<index>/<field>, system/<field>; another node's
  // (relayed to node 0) under node/<K>/, so that its GPU 0 is not node 0's.
  nlohmann::json data = e.data;
  int node = 0;
  if (data.is_object() && data.contains("node")) {
    if (data["node"].is_number_integer()) node = data["node"].get<int>();
    data.erase("node");
  }
  const std::string group = nodeKeyPrefix(node) + (e.type == event_type::kGpuSample ? "gpu" : "system");
  const int64_t step = m_sampleSteps[group]++;
  std::vector<std::pair<std::string, double>> leaves;
  // gpu_sample's "gpus" array: gpu/<index>/<field>.
  if (e.type == event_type::kGpuSample && data.contains("gpus")) data = data["gpus"];
  flattenNumbers(data, "", leaves);
  for (const auto& [key, value] : leaves) scalar(group + "/" + key, step, value, e.time);
  flush();
}

void TensorBoardWriter::writeEvent(const Event& e) { m_dispatch(e); }

}  // namespace stave::telemetry
