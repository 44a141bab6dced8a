#pragma once
// The node's CPU (per core), memory, the read rate of the dataset's disk, and each rank's
// process (resident memory, CPU), read from /proc. Rates are differences between two calls,
// so the first sample carries none. Linux only; a file that cannot be read leaves its values
// unknown (-1), it is not an error.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/telemetry/events.h"

namespace stave::telemetry {

class SystemSampler {
 public:
  /// `procRoot` is /proc (tests pass a folder laid out like it).
  explicit SystemSampler(std::string procRoot = "/proc");

  /// The disk whose reads are reported: the block device holding `path` (e.g. the dataset
  /// root). Unknown (no rate) when it is not a block device listed in diskstats.
  void setDiskPath(const std::string& path);
  /// For tests: the diskstats name to follow instead of the one setDiskPath found.
  void setDiskName(const std::string& name) { m_disk = name; }
  const std::string& diskName() const { return m_disk; }

  /// Reads everything now. `ranks` are (global rank, pid) of the processes to report; `now`
  /// is the caller's monotonic time in seconds (rates are per second of it).
  SystemSampleEvent sample(const std::vector<std::pair<int, int>>& ranks, double now);

 private:
  struct CpuTimes {
    uint64_t busy = 0;
    uint64_t total = 0;
  };
  /// The per-core and total CPU use since the last call; remembers this call's times.
  void sampleCpu(SystemSampleEvent& out);
  /// The node's total and used memory.
  void sampleMemory(SystemSampleEvent& out) const;
  /// One rank's process; records its CPU ticks in `ticks` (pid -> utime + stime).
  ProcessReading sampleProcess(int rank, int pid, double dt, std::map<int, uint64_t>& ticks) const;
  /// The read rate of the followed disk since the last call; remembers this call's sectors.
  void sampleDisk(SystemSampleEvent& out, double dt);
  std::string m_root;
  std::string m_disk;
  double m_lastTime = -1;
  std::vector<CpuTimes> m_lastCpu;  ///< [0] = all cores, then cpu0, cpu1, ...
  std::map<int, uint64_t> m_lastProcTicks;  ///< pid -> utime + stime
  int64_t m_lastDiskSectors = -1;
  long m_ticksPerSecond = 100;
};

}  // namespace stave::telemetry
