#include "core/bench/bench_doctor.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/base/atomic_file.h"
#include "core/bench/scratch_dir.h"
#include "core/config/run_config.h"
#include "core/data/demo.h"
#include "core/telemetry/doctor.h"

namespace fs = std::filesystem;

namespace stave::bench {
using namespace stave::telemetry;  // the doctor this benchmark checks
namespace {

/// Runs `exe` with `args` and, when `slowReadMs` > 0, the slow-storage fault; its
/// output goes to `log`. Returns the exit status (-1 when it could not start or was killed).
int runChild(const std::string& exe, const std::vector<std::string>& args, int slowReadMs,
             const fs::path& log) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    if (slowReadMs > 0)
      setenv("STAVE_FAULT_SLOW_READ_MS", std::to_string(slowReadMs).c_str(), 1);
    else
      unsetenv("STAVE_FAULT_SLOW_READ_MS");
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// What one training run measured, from its event log.
struct RunResult {
  std::vector<double> epochSeconds;  ///< training time of every epoch
  int imagesPerEpoch = 0;            ///< iterations x batch of epoch 0
  double dataWaitShare = 0;          ///< the doctor's mean data-wait share after the warm-up
  double stepS = 0;                  ///< the doctor's mean step time after the warm-up
  DiagnosisEvent report;             ///< the doctor's report over the whole run

  /// Images/s after the first epoch (which fills a cache when there is one).
  double steadyImagesPerSec() const {
    if (epochSeconds.size() < 2 || imagesPerEpoch <= 0) return 0;
    double t = 0;
    for (size_t i = 1; i < epochSeconds.size(); ++i) t += epochSeconds[i];
    return t > 0 ? imagesPerEpoch * static_cast<double>(epochSeconds.size() - 1) / t : 0;
  }
  double totalSeconds() const {
    double t = 0;
    for (double s : epochSeconds) t += s;
    return t;
  }
};

Result<RunResult> readRun(const fs::path& runDir, int batch) {
  const fs::path log = runDir / "events.jsonl";
  std::ifstream in(log, std::ios::binary);
  if (!in) return Error{log.string(), 0, "", "cannot be read"};
  RunResult r;
  Doctor doctor;
  std::string line;
  while (std::getline(in, line)) {
    auto e = decodeEvent(line);
    if (!e) continue;
    if (e->type == event_type::kEpochEnd) {
      if (auto ee = epochEndFromEvent(e.value())) r.epochSeconds.push_back(ee->epochTime);
    } else if (e->type == event_type::kStep && r.imagesPerEpoch == 0) {
      if (auto s = stepFromEvent(e.value())) r.imagesPerEpoch = s->itersPerEpoch * batch;
    }
    doctor.add(e.value());
  }
  r.report = doctor.finalReport();
  const DoctorWindow w = doctor.runWindow();
  if (auto it = w.ranks.find(0); it != w.ranks.end() && it->second.mean.total > 0) {
    r.stepS = it->second.mean.total;
    r.dataWaitShare = it->second.mean.dataWait / it->second.mean.total;
  }
  if (r.epochSeconds.size() < 2)
    return Error{
        log.string(), 0, "epochs",
        "needs at least 2 finished epochs, found " + std::to_string(r.epochSeconds.size())};
  return r;
}

nlohmann::json runJson(const RunResult& r, const std::vector<std::string>& overrides,
                       int slowReadMs) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : r.report.findings) findings.push_back(f.rule);
  return {{"overrides", overrides},
          {"slow_read_ms", slowReadMs},
          {"images_per_s", r.steadyImagesPerSec()},
          {"epoch_s", r.epochSeconds},
          {"total_train_s", r.totalSeconds()},
          {"step_s", r.stepS},
          {"data_wait_share", r.dataWaitShare},
          {"findings", findings}};
}

/// The demo dataset (or o.data) and the runs' config, bench.yaml in `work`: on the CPU,
/// validation off, reports every 2 s.
Result<std::string> writeConfig(const BenchDoctorOptions& o, const fs::path& work,
                                const std::string& dataYaml) {
  const fs::path cfg = work / "bench.yaml";
  auto config = config::RunConfig::defaults();
  const std::vector<std::pair<const char*, config::Value>> values{
      {"data", fs::absolute(dataYaml).string()},
      {"model", std::string("yolov8n")},
      {"imgsz", int64_t{o.imgsz}},
      {"epochs", int64_t{o.epochs}},
      {"batch", int64_t{o.batch}},
      {"devices", std::string("cpu")},
      {"close_mosaic", int64_t{0}},
      {"val", false},
      {"report_period_s", 2.0},
      {"sample_period_s", 0.5},
      {"seed", int64_t{0}},
      {"threads", int64_t{std::max(o.threads, 0)}},
  };
  for (const auto& [key, value] : values)
    if (auto s = config.set(key, value); !s) return s.errors();
  if (auto s = writeFileAtomic(cfg.string(), config::toYaml(config)); !s) return s.errors();
  return cfg.string();
}

/// A dataset larger than the loader's buffer of recent images, from 640 px sources (so a
/// decode costs what a real one does), trained small so the steps are cheap and storage
/// shows; or o.data. Returns its data.yaml.
Result<std::string> datasetYaml(const BenchDoctorOptions& o, const fs::path& work) {
  if (!o.data.empty()) return o.data;
  data::DemoOptions demo;
  demo.out = (work / "demo").string();
  demo.train = o.images;
  demo.val = 8;
  demo.imgsz = 640;
  if (auto s = data::makeDemo(demo); !s) return s.errors();
  return demo.out + "/data.yaml";
}

/// One training run of the config in `work`, named `name`, with `overrides`; `slowMs` > 0 puts
/// it on slow storage. Its output goes to <work>/<name>.log.
Result<RunResult> train(const BenchDoctorOptions& o, const fs::path& work, const std::string& cfg,
                        const std::string& name, const std::vector<std::string>& overrides,
                        int slowMs) {
  const fs::path runDir = work / "runs" / name;
  std::vector<std::string> cmd{"train", cfg, "--run-dir", runDir.string()};
  cmd.insert(cmd.end(), overrides.begin(), overrides.end());
  if (o.progress) {
    std::string what = name + " run (" + (slowMs ? "slow" : "fast") + " storage";
    for (const auto& ov : overrides) what += " " + ov;
    o.progress(what + ")");
  }
  const fs::path log = work / (name + ".log");
  if (const int rc = runChild(o.executable, cmd, slowMs, log); rc != 0)
    return Error{log.string(), 0, "run",
                 "the " + name + " run failed (exit " + std::to_string(rc) + ")"};
  return readRun(runDir, o.batch);
}

/// The doctor's data_bound finding with advice for the planted run, or an error (key
/// kDoctorNotDataBoundKey) that says what it found instead.
Result<const Finding*> dataBoundFinding(const RunResult& planted) {
  const Finding* dataBound = nullptr;
  for (const auto& f : planted.report.findings)
    if (f.rule == "data_bound") dataBound = &f;
  if (dataBound && !dataBound->advice.empty()) return dataBound;
  std::string rules;
  for (const auto& f : planted.report.findings) rules += " " + f.rule;
  return Error{"", 0, kDoctorNotDataBoundKey,
               "the doctor did not call the planted run data-bound (findings:" +
                   (rules.empty() ? std::string(" none") : rules) + ", data wait " +
                   std::to_string(std::lround(planted.dataWaitShare * 100)) +
                   "%); try a larger --slow-read-ms"};
}

/// The advice as overrides, after the planted settings it does not replace.
std::vector<std::string> advisedOverrides(const std::vector<std::string>& planted,
                                          const nlohmann::json& adviceJson,
                                          const Finding& dataBound) {
  std::vector<std::string> advised;
  for (const auto& o : planted)
    if (!adviceJson.contains(o.substr(0, o.find('=')))) advised.push_back(o);
  for (const auto& ad : dataBound.advice) advised.push_back(ad.key + "=" + ad.value);
  return advised;
}

}  // namespace

Result<nlohmann::json> benchDoctor(const BenchDoctorOptions& o) {
  const bool keep = o.keep || !o.out.empty();
  const fs::path work = !o.out.empty() ? fs::path(o.out) : scratchPath("stave-bench-doctor-");
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) return Error{"", 0, kDoctorFolderKey, work.string() + ": " + ec.message()};
  const ScratchDir cleanup(work, keep);
  auto dataYaml = datasetYaml(o, work);
  if (!dataYaml) return dataYaml.errors();
  auto cfg = writeConfig(o, work, dataYaml.value());
  if (!cfg) return cfg.errors();

  // The planted run: the training thread reads every image itself from slow storage.
  const std::vector<std::string> planted{"workers=0", "cache=none"};
  auto slow = train(o, work, cfg.value(), "planted", planted, o.slowMs);
  if (!slow) return slow.errors();
  auto dataBound = dataBoundFinding(slow.value());
  if (!dataBound) return dataBound.errors();
  const auto& advice = dataBound.value()->advice;
  // The same run with the doctor's advice applied on top of the planted settings.
  nlohmann::json adviceJson = nlohmann::json::object();
  for (const auto& ad : advice) adviceJson[ad.key] = ad.value;
  const auto advised = advisedOverrides(planted, adviceJson, *dataBound.value());
  auto fixed = train(o, work, cfg.value(), "advised", advised, o.slowMs);
  if (!fixed) return fixed.errors();
  auto fast = train(o, work, cfg.value(), "reference", planted, 0);
  if (!fast) return fast.errors();

  const double p = slow->steadyImagesPerSec(), f = fixed->steadyImagesPerSec(),
               r = fast->steadyImagesPerSec();
  const double lost = r - p;
  const double recovered = lost > 0 ? (f - p) / lost : 0;
  constexpr double kTarget = 0.8;
  nlohmann::json out{
      {"benchmark", "doctor"},
      {"what",
       "images/s after the first epoch: planted data-bound run (slow storage, loader "
       "starved), the same run with the doctor's advice, and fast storage"},
      {"data", fs::absolute(dataYaml.value()).string()},
      {"imgsz", o.imgsz},
      {"batch", o.batch},
      {"epochs", o.epochs},
      {"planted", runJson(slow.value(), planted, o.slowMs)},
      {"advice", adviceJson},
      {"advice_text", adviceText(advice)},
      {"advised", runJson(fixed.value(), advised, o.slowMs)},
      {"reference", runJson(fast.value(), planted, 0)},
      {"lost_images_per_s", lost},
      {"recovered_fraction", recovered},
      {"target", kTarget},
      {"meets_target", lost > 0 && recovered >= kTarget}};
  if (keep) out["work_dir"] = fs::absolute(work).string();
  return out;
}

}  // namespace stave::bench
