#include "core/telemetry/system_sampler.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace stave::telemetry {

namespace {

bool readAll(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace

SystemSampler::SystemSampler(std::string procRoot) : m_root(std::move(procRoot)) {
  const long t = sysconf(_SC_CLK_TCK);
  if (t > 0) m_ticksPerSecond = t;
}

void SystemSampler::setDiskPath(const std::string& path) {
  m_disk.clear();
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return;
  const unsigned maj = major(st.st_dev), min = minor(st.st_dev);
  std::string text;
  if (!readAll(m_root + "/diskstats", text)) return;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    unsigned a = 0, b = 0;
    std::string name;
    if (f >> a >> b >> name && a == maj && b == min) {
      m_disk = name;
      return;
    }
  }
}

SystemSampleEvent SystemSampler::sample(const std::vector<std::pair<int, int>>& ranks, double now) {
  SystemSampleEvent out;
  const double dt = m_lastTime >= 0 ? now - m_lastTime : 0;
  sampleCpu(out);
  sampleMemory(out);
  std::map<int, uint64_t> ticks;
  for (const auto& [rank, pid] : ranks) out.ranks.push_back(sampleProcess(rank, pid, dt, ticks));
  m_lastProcTicks = ticks;
  sampleDisk(out, dt);
  m_lastTime = now;
  return out;
}

void SystemSampler::sampleCpu(SystemSampleEvent& out) {
  // CPU: "cpu" (all) and "cpuN" lines of /proc/stat; busy = everything but idle and iowait.
  std::string text;
  std::vector<CpuTimes> cpu;
  if (readAll(m_root + "/stat", text)) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("cpu", 0) != 0) break;
      std::istringstream f(line);
      std::string label;
      f >> label;
      uint64_t v = 0, total = 0, idle = 0;
      for (int k = 0; f >> v; ++k) {
        if (k >= 8) break;  // guest times are already in user/nice
        total += v;
        if (k == 3 || k == 4) idle += v;
      }
      cpu.push_back({total - idle, total});
    }
  }
  if (!m_lastCpu.empty() && m_lastCpu.size() == cpu.size()) {
    for (size_t i = 0; i < cpu.size(); ++i) {
      const double dTotal = static_cast<double>(cpu[i].total - m_lastCpu[i].total);
      const double dBusy = static_cast<double>(cpu[i].busy - m_lastCpu[i].busy);
      const double pct = dTotal > 0 ? 100.0 * dBusy / dTotal : 0.0;
      if (i == 0) out.cpuTotal = pct;
      else out.cpu.push_back(pct);
    }
  }
  m_lastCpu = cpu;
}

void SystemSampler::sampleMemory(SystemSampleEvent& out) const {
  // Memory: MemTotal and MemAvailable, in kB.
  std::string text;
  if (readAll(m_root + "/meminfo", text)) {
    std::istringstream lines(text);
    std::string key;
    int64_t kb = 0;
    std::string unit;
    int64_t total = -1, available = -1;
    while (lines >> key >> kb) {
      std::getline(lines, unit);
      if (key == "MemTotal:") total = kb;
      if (key == "MemAvailable:") available = kb;
    }
    if (total >= 0) out.memTotal = static_cast<double>(total) * 1024;
    if (total >= 0 && available >= 0) out.memUsed = static_cast<double>(total - available) * 1024;
  }
}

ProcessReading SystemSampler::sampleProcess(int rank, int pid, double dt,
                                            std::map<int, uint64_t>& ticks) const {
  // Each rank: VmRSS from status, utime + stime (fields 14, 15) from stat.
  ProcessReading p;
  p.rank = rank;
  p.pid = pid;
  const std::string dir = m_root + "/" + std::to_string(pid);
  std::string text;
  try {  // a process that ends while it is read leaves odd text: its values stay unknown
    if (readAll(dir + "/status", text)) {
      const size_t at = text.find("VmRSS:");
      if (at != std::string::npos) p.rss = std::stod(text.substr(at + 6)) * 1024;
    }
    if (readAll(dir + "/stat", text)) {
      // The command name may hold spaces and parentheses: fields count from the last ')'.
      const size_t close = text.rfind(')');
      if (close != std::string::npos) {
        std::istringstream f(text.substr(close + 2));
        std::string field;
        uint64_t utime = 0, stime = 0;
        for (int k = 3; f >> field; ++k) {
          if (k == 14) utime = std::stoull(field);
          if (k == 15) {
            stime = std::stoull(field);
            break;
          }
        }
        ticks[pid] = utime + stime;
        const auto last = m_lastProcTicks.find(pid);
        if (last != m_lastProcTicks.end() && dt > 0 && ticks[pid] >= last->second)
          p.cpu = 100.0 * static_cast<double>(ticks[pid] - last->second) /
                  static_cast<double>(m_ticksPerSecond) / dt;
      }
    }
  } catch (const std::exception&) {
  }
  return p;
}

void SystemSampler::sampleDisk(SystemSampleEvent& out, double dt) {
  // The dataset's disk: sectors read (field 6 of diskstats, 512 bytes each).
  out.disk = m_disk;
  std::string text;
  if (!m_disk.empty() && readAll(m_root + "/diskstats", text)) {
    std::istringstream lines(text);
    std::string line;
    int64_t sectors = -1;
    while (std::getline(lines, line)) {
      std::istringstream f(line);
      unsigned a = 0, b = 0;
      std::string name;
      int64_t reads = 0, merged = 0, sec = 0;
      if (f >> a >> b >> name >> reads >> merged >> sec && name == m_disk) {
        sectors = sec;
        break;
      }
    }
    if (sectors >= 0 && m_lastDiskSectors >= 0 && dt > 0 && sectors >= m_lastDiskSectors)
      out.diskReadBps = static_cast<double>(sectors - m_lastDiskSectors) * 512.0 / dt;
    m_lastDiskSectors = sectors;
  }
}

}  // namespace stave::telemetry
