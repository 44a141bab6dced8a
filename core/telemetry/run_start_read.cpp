// A run's first run_start event, read from the start of its events.jsonl.
#include "core/telemetry/run_start_read.h"

#include <unistd.h>

#include <fstream>

#include "core/base/bounded_read.h"

namespace stave::telemetry {

Result<RunStartEvent> readFirstRunStart(const std::string& path, size_t maxBytes) {
  std::string why;
  const int fd = openRegularFile(path, &why);
  if (fd < 0) return Error{path, 0, "", why};
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  CappedLineReader reader(in);
  std::string line;
  size_t read = 0;
  for (;;) {
    const auto got = reader.next(&line);
    if (got == CappedLineReader::Got::End) break;
    read += line.size() + 1;
    if (read > maxBytes) break;
    // Only a line that names the type is decoded: steps and samples are most of the file.
    if (got != CappedLineReader::Got::Line || line.find(event_type::kRunStart) == std::string::npos)
      continue;
    auto event = decodeEvent(line);
    if (!event || event->type != event_type::kRunStart) continue;
    auto start = runStartFromEvent(event.value());
    if (!start) return Error{path, int(reader.lineNo()), "", start.errorText()};
    return start;
  }
  return Error{path, 0, "",
               "no run_start event in its first " + std::to_string(maxBytes >> 20) + " MiB"};
}

}  // namespace stave::telemetry
