#include "core/telemetry/metrics.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace stave::telemetry {
namespace {

const char* kRunStates[] = {"running", "completed", "stopped", "failed", "early_stopped"};

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

}  // namespace

const std::vector<MetricFamilyInfo>& metricFamilies() {
  static const std::vector<MetricFamilyInfo> families = {
      {"stave_run_info", "gauge", "Always 1; labels describe the run (device, world size, version)."},
      {"stave_run_state", "gauge", "1 for the run's current state, 0 for the others."},
      {"stave_run_start_time_seconds", "gauge", "Unix time the run started."},
      {"stave_last_event_time_seconds", "gauge", "Unix time of the run's latest event."},
      {"stave_events_total", "counter", "Events of the run, by type."},
      {"stave_train_epoch", "gauge", "Epoch being trained (1-based)."},
      {"stave_train_epochs", "gauge", "Epochs planned."},
      {"stave_train_epoch_duration_seconds", "gauge", "Training time of the last finished epoch."},
      {"stave_train_steps_total", "counter", "Iterations trained by the rank (a resumed run continues its count)."},
      {"stave_train_samples_per_second", "gauge", "Images per second trained by the rank."},
      {"stave_train_loss", "gauge", "Running mean training loss of the epoch, by loss term."},
      {"stave_train_learning_rate", "gauge", "Learning rate of parameter group 0."},
      {"stave_step_duration_seconds", "gauge", "Mean wall time of the rank's recent steps."},
      {"stave_step_phase_seconds", "gauge", "Mean seconds of the rank's recent steps spent in each phase."},
      {"stave_val_map50", "gauge", "mAP at IoU 0.5 of the latest validation."},
      {"stave_val_map50_95", "gauge", "mAP at IoU 0.5:0.95 of the latest validation."},
      {"stave_val_precision", "gauge", "Mean precision of the latest validation."},
      {"stave_val_recall", "gauge", "Mean recall of the latest validation."},
      {"stave_val_duration_seconds", "gauge", "Wall time of the latest validation."},
      {"stave_straggler_rank", "gauge", "The slowest rank of the latest reporting period."},
      {"stave_straggler_imbalance_ratio", "gauge", "Own-time excess of the slowest rank over the others, as a share of its step."},
      {"stave_diagnosis_finding", "gauge", "1 while the doctor reports the rule's finding, 0 after it cleared."},
      {"stave_gpu_utilization_ratio", "gauge", "Share of time a kernel ran on the GPU (0..1)."},
      {"stave_gpu_memory_utilization_ratio", "gauge", "Share of time the GPU's memory was read or written (0..1)."},
      {"stave_gpu_memory_used_bytes", "gauge", "GPU memory in use."},
      {"stave_gpu_memory_total_bytes", "gauge", "GPU memory in all."},
      {"stave_gpu_power_watts", "gauge", "GPU board power."},
      {"stave_gpu_power_limit_watts", "gauge", "Enforced GPU power limit."},
      {"stave_gpu_temperature_celsius", "gauge", "GPU core temperature."},
      {"stave_gpu_sm_clock_hertz", "gauge", "GPU SM clock."},
      {"stave_gpu_pcie_transmit_bytes_per_second", "gauge", "PCIe bytes per second sent by the GPU."},
      {"stave_gpu_pcie_receive_bytes_per_second", "gauge", "PCIe bytes per second received by the GPU."},
      {"stave_node_cpu_utilization_ratio", "gauge", "Share of the node's CPU time busy (0..1)."},
      {"stave_node_memory_used_bytes", "gauge", "Node memory in use (total - available)."},
      {"stave_node_memory_total_bytes", "gauge", "Node memory in all."},
      {"stave_node_disk_read_bytes_per_second", "gauge", "Bytes per second read from the dataset's disk."},
      {"stave_rank_resident_memory_bytes", "gauge", "Resident memory of the rank's process."},
      {"stave_rank_cpu_utilization_ratio", "gauge", "CPU time of the rank's process per second (1 = one core busy)."},
  };
  return families;
}

std::string formatLabels(const std::vector<std::pair<std::string, std::string>>& labels) {
  if (labels.empty()) return "";
  std::string s = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) s += ",";
    s += labels[i].first + "=\"" + escape(labels[i].second) + "\"";
  }
  return s + "}";
}

MetricsRegistry::MetricsRegistry(std::string run, std::string host, std::string node)
    : m_run(std::move(run)), m_host(std::move(host)), m_node(std::move(node)) {
  m_dispatch.on<RunStartEvent>([this](const Event& e, const RunStartEvent& rs) { onRunStart(e, rs); })
      .on<StepEvent>([this](const Event& e, const StepEvent& st) { onStep(e, st); })
      .on<EpochEndEvent>([this](const Event&, const EpochEndEvent& ee) {
        set("stave_train_epochs", base(), ee.epochs);
        set("stave_train_epoch_duration_seconds", base(), ee.epochTime);
      })
      .on<ValidationEvent>([this](const Event&, const ValidationEvent& v) {
        set("stave_val_map50", base(), v.map50);
        set("stave_val_map50_95", base(), v.map5095);
        set("stave_val_precision", base(), v.precision);
        set("stave_val_recall", base(), v.recall);
        set("stave_val_duration_seconds", base(), v.valTime);
      })
      .on<StragglerEvent>([this](const Event&, const StragglerEvent& st) {
        set("stave_straggler_rank", base(), st.slowRank);
        set("stave_straggler_imbalance_ratio", base(), st.imbalance);
      })
      .on<GpuSampleEvent>([this](const Event&, const GpuSampleEvent& g) { onGpu(g); })
      .on<SystemSampleEvent>([this](const Event&, const SystemSampleEvent& st) { onSystem(st); })
      .on<DiagnosisEvent>([this](const Event&, const DiagnosisEvent& d) { onDiagnosis(d); })
      .on<FinishedEvent>([this](const Event&, const FinishedEvent& f) {
        for (const char* st : kRunStates) {
          Labels l = base();
          l.emplace_back("state", st);
          set("stave_run_state", l, std::string(st) == toString(f.status) ? 1 : 0);
        }
      });
}

MetricsRegistry::Labels MetricsRegistry::base() const {
  if (!m_node.empty()) return {{"run", m_run}, {"host", m_host}, {"node", m_node}};
  return {{"run", m_run}, {"host", m_host}};
}

void MetricsRegistry::set(const std::string& family, Labels labels, double value) {
  m_values[family][formatLabels(labels)] = value;
}

void MetricsRegistry::add(const std::string& family, Labels labels, double value) {
  m_values[family][formatLabels(labels)] += value;
}

void MetricsRegistry::onRunStart(const Event& e, const RunStartEvent& rs) {
  // The first run_start names the series (the launcher's and rank 0's describe one run).
  if (m_run.empty() && !rs.runDir.empty()) m_run = std::filesystem::path(rs.runDir).filename().string();
  if (m_host.empty()) m_host = rs.host;
  auto version = rs.versions.count("stave") ? rs.versions.at("stave") : "";
  Labels info = base();
  info.insert(info.end(), {{"device", rs.device}, {"world_size", std::to_string(rs.worldSize)}, {"version", version}});
  m_values["stave_run_info"].clear();
  set("stave_run_info", info, 1);
  set("stave_run_start_time_seconds", base(), e.time);
  for (const char* st : kRunStates) {
    Labels l = base();
    l.emplace_back("state", st);
    set("stave_run_state", l, std::string(st) == "running" ? 1 : 0);
  }
}

void MetricsRegistry::observe(const Event& e) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_dispatch(e);
  if (!e.type.empty()) {
    Labels l = base();
    l.emplace_back("type", e.type);
    add("stave_events_total", l, 1);
  }
  if (e.time > 0) set("stave_last_event_time_seconds", base(), e.time);
}

void MetricsRegistry::onStep(const Event& e, const StepEvent& s) {
  const std::string rank = std::to_string(e.rank);
  Labels r = base();
  r.emplace_back("rank", rank);
  set("stave_train_samples_per_second", r, s.samplesPerSec);
  set("stave_train_steps_total", r, static_cast<double>(globalStep(s) + 1));
  set("stave_step_duration_seconds", r, s.timing.total);
  for (StepPhase p : {StepPhase::DataWait, StepPhase::H2D, StepPhase::FwdBwd,
                      StepPhase::AllreduceWait, StepPhase::Optimizer}) {
    Labels l = r;
    l.emplace_back("phase", toString(p));
    set("stave_step_phase_seconds", l, phaseSeconds(s.timing, p));
  }
  for (const auto& [name, value] : {std::pair{"box", s.boxLoss}, std::pair{"cls", s.clsLoss},
                                     std::pair{"dfl", s.dflLoss}}) {
    Labels l = r;
    l.emplace_back("loss", name);
    set("stave_train_loss", l, value);
  }
  if (e.rank == 0) {
    set("stave_train_learning_rate", base(), s.lr);
    set("stave_train_epoch", base(), s.epoch + 1);
  }
}

void MetricsRegistry::onGpu(const GpuSampleEvent& g) {
  for (const auto& r : g.gpus) {
    Labels l = base();
    l.insert(l.end(), {{"gpu", std::to_string(r.index)}, {"name", r.name}});
    auto put = [&](const char* family, double value, double scale) {
      if (value >= 0 && std::isfinite(value)) set(family, l, value * scale);
    };
    put("stave_gpu_utilization_ratio", r.util, 0.01);
    put("stave_gpu_memory_utilization_ratio", r.memUtil, 0.01);
    put("stave_gpu_memory_used_bytes", r.memUsed, 1);
    put("stave_gpu_memory_total_bytes", r.memTotal, 1);
    put("stave_gpu_power_watts", r.powerW, 1);
    put("stave_gpu_power_limit_watts", r.powerLimitW, 1);
    put("stave_gpu_temperature_celsius", r.temperatureC, 1);
    put("stave_gpu_sm_clock_hertz", r.smClockMHz, 1e6);
    put("stave_gpu_pcie_transmit_bytes_per_second", r.pcieTxBps, 1);
    put("stave_gpu_pcie_receive_bytes_per_second", r.pcieRxBps, 1);
  }
}

void MetricsRegistry::onSystem(const SystemSampleEvent& s) {
  if (s.cpuTotal >= 0) set("stave_node_cpu_utilization_ratio", base(), s.cpuTotal * 0.01);
  if (s.memUsed >= 0) set("stave_node_memory_used_bytes", base(), s.memUsed);
  if (s.memTotal >= 0) set("stave_node_memory_total_bytes", base(), s.memTotal);
  if (s.diskReadBps >= 0) set("stave_node_disk_read_bytes_per_second", base(), s.diskReadBps);
  for (const auto& p : s.ranks) {
    Labels l = base();
    l.emplace_back("rank", std::to_string(p.rank));
    if (p.rss >= 0) set("stave_rank_resident_memory_bytes", l, p.rss);
    if (p.cpu >= 0) set("stave_rank_cpu_utilization_ratio", l, p.cpu * 0.01);
  }
}

void MetricsRegistry::onDiagnosis(const DiagnosisEvent& d) {
  std::map<std::string, std::string> now;
  for (const auto& f : d.findings) {
    Labels l = base();
    l.insert(l.end(), {{"rule", f.rule}, {"severity", toString(f.severity)}});
    now[f.rule] = formatLabels(l);
  }
  auto& family = m_values["stave_diagnosis_finding"];
  for (const auto& [rule, labels] : m_activeFindings)
    if (!now.count(rule) || now[rule] != labels) family[labels] = 0;
  for (const auto& [rule, labels] : now) family[labels] = 1;
  m_activeFindings = std::move(now);
}

std::string MetricsRegistry::render() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::ostringstream out;
  for (const auto& f : metricFamilies()) {
    auto it = m_values.find(f.name);
    if (it == m_values.end() || it->second.empty()) continue;
    out << "# HELP " << f.name << " " << f.help << "\n# TYPE " << f.name << " " << f.type << "\n";
    for (const auto& [labels, value] : it->second) out << f.name << labels << " " << number(value) << "\n";
  }
  return out.str();
}

}  // namespace stave::telemetry
