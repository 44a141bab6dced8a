#pragma once
// TensorBoard event files for a run (runs/<id>/tb/events.out.tfevents.*), so that
// `tensorboard --logdir runs` shows Stave's runs next to everything else a user logs there.
// The file is TFRecord-framed tensorflow.Event protos carrying scalar summaries; the few
// fields needed are encoded here (no protobuf library, no TensorFlow). Whatever keeps
// events.jsonl feeds the same events to a TensorBoardWriter, so both hold the same run: as
// events, the one it encoded or decoded for the line it wrote, never a line to decode again.

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "core/base/result.h"
#include "core/telemetry/event_dispatch.h"
#include "core/telemetry/events.h"

namespace stave::telemetry {

/// CRC-32C (Castagnoli), as TFRecord frames use it.
uint32_t crc32c(const void* data, size_t size);

/// One TensorBoard event file, appended as events arrive. Each process start writes a new file
/// (a resumed run adds one); TensorBoard reads all files of a folder as one run.
class TensorBoardWriter {
 public:
  /// Creates `dir` and a new event file in it. The error names the path.
  static Result<std::unique_ptr<TensorBoardWriter>> open(const std::string& dir);
  ~TensorBoardWriter();
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  /// One scalar (non-finite values are left out: TensorBoard draws a gap).
  void scalar(const std::string& tag, int64_t step, double value, double wallTime);
  /// The scalars of one Stave event: rank 0's steps (step/*, x = global iteration), epoch ends
  /// (train/*, lr/pg*, time/epoch_s) and validations (metrics/*, val/*; x = epoch, 1-based as
  /// in results.csv), and the launcher's samples (gpu/<index>/<field>, system/<field>).
  void writeEvent(const Event& event);
  /// Makes everything written visible to readers.
  void flush();

  /// The event file.
  const std::string& path() const { return m_path; }
  /// Writes that failed (e.g. a full disk); counted, never thrown.
  int64_t failures() const { return m_failures; }

 private:
  TensorBoardWriter();
  void record(const std::string& payload);
  void writeSamples(const Event& e);
  EventDispatch m_dispatch;  ///< what each event type writes
  std::FILE* m_file = nullptr;
  std::string m_path;
  int64_t m_failures = 0;
  std::map<std::string, int64_t> m_sampleSteps;  ///< per sample type: samples written
};

}  // namespace stave::telemetry
