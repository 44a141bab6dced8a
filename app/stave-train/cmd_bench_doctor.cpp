// stave-train bench doctor: does the doctor's advice work? Trains the same config three times
// in one run: on slow storage with the loader starved (the planted data-bound run), on the same
// slow storage with the doctor's advice from the planted run applied, and on fast storage (the
// reference). Prints the fraction of the throughput the slow storage cost that the advice won
// back (target >= 0.8; docs/doctor.md, tests/bench/README.md).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/stave-train/command.h"
#include "core/base/atomic_file.h"
#include "core/config/run_config.h"
#include "core/data/demo.h"
#include "core/telemetry/doctor.h"

namespace fs = std::filesystem;
using namespace stave::telemetry;

namespace {

constexpr const char* kCmd = "bench doctor";

/// Runs this executable with `args` and, when `slowReadMs` > 0, the slow-storage fault; its
/// output goes to `log`. Returns the exit status (-1 when it could not start or was killed).
int runChild(const std::vector<std::string>& args, int slowReadMs, const fs::path& log) {
  const std::string exe = stave::cli::selfExecutable();
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

stave::Result<RunResult> readRun(const fs::path& runDir, int batch) {
  const fs::path log = runDir / "events.jsonl";
  std::ifstream in(log, std::ios::binary);
  if (!in) return stave::Error{log.string(), 0, "", "cannot be read"};
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
    return stave::Error{
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

struct BenchDoctorOptions {
  std::string data, out;
  int images = 600;
  /// Small images and few epochs, the bench's own: storage must be what limits the planted run,
  /// and three trainings must take minutes.
  int imgsz = 64;
  int epochs = 3;
  int batch = stave::cli::schemaDefault<int>("batch");
  int slowMs = 20;
  int threads = stave::cli::schemaDefault<int>("threads");
  bool keep = false;
};

int run(const BenchDoctorOptions& o) {
  const int images = o.images, imgsz = o.imgsz, batch = o.batch, epochs = o.epochs,
            slowMs = o.slowMs, threads = o.threads;
  const bool keep = o.keep || !o.out.empty();
  const fs::path work = !o.out.empty() ? fs::path(o.out)
                                       : fs::temp_directory_path() /
                                             ("stave-bench-doctor-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) return stave::cli::usageError(kCmd, work.string() + ": " + ec.message());
  struct Cleanup {
    fs::path p;
    bool keep;
    ~Cleanup() {
      std::error_code e;
      if (!keep) fs::remove_all(p, e);
    }
  } cleanup{work, keep};

  // A dataset larger than the loader's buffer of recent images, from 640 px sources (so a
  // decode costs what a real one does), trained small so the steps are cheap and storage shows.
  std::string dataYaml = o.data;
  if (dataYaml.empty()) {
    stave::data::DemoOptions demo;
    demo.out = (work / "demo").string();
    demo.train = images;
    demo.val = 8;
    demo.imgsz = 640;
    if (auto s = stave::data::makeDemo(demo); !s) return stave::cli::reportErrors(kCmd, s.errors());
    dataYaml = demo.out + "/data.yaml";
  }
  // The runs' config: the demo (or --data) on the CPU, validation off, reports every 2 s.
  const fs::path cfg = work / "bench.yaml";
  {
    auto config = stave::config::RunConfig::defaults();
    const std::vector<std::pair<const char*, stave::config::Value>> values{
        {"data", fs::absolute(dataYaml).string()},
        {"model", std::string("yolov8n")},
        {"imgsz", int64_t{imgsz}},
        {"epochs", int64_t{epochs}},
        {"batch", int64_t{batch}},
        {"devices", std::string("cpu")},
        {"close_mosaic", int64_t{0}},
        {"val", false},
        {"report_period_s", 2.0},
        {"sample_period_s", 0.5},
        {"seed", int64_t{0}},
        {"threads", int64_t{std::max(threads, 0)}},
    };
    for (const auto& [key, value] : values)
      if (auto s = config.set(key, value); !s) return stave::cli::reportErrors(kCmd, s.errors());
    if (auto s = stave::writeFileAtomic(cfg.string(), stave::config::toYaml(config)); !s)
      return stave::cli::reportErrors(kCmd, s.errors());
  }

  // The planted run: the training thread reads every image itself from slow storage.
  const std::vector<std::string> planted{"workers=0", "cache=none"};
  auto train = [&](const std::string& name, const std::vector<std::string>& overrides,
                   int slow) -> stave::Result<RunResult> {
    const fs::path runDir = work / "runs" / name;
    std::vector<std::string> cmd{"train", cfg.string(), "--run-dir", runDir.string()};
    cmd.insert(cmd.end(), overrides.begin(), overrides.end());
    std::cerr << "bench doctor: " << name << " run (" << (slow ? "slow" : "fast") << " storage";
    for (const auto& o : overrides) std::cerr << " " << o;
    std::cerr << ")\n";
    const fs::path log = work / (name + ".log");
    if (const int rc = runChild(cmd, slow, log); rc != 0)
      return stave::Error{log.string(), 0, "run",
                          "the " + name + " run failed (exit " + std::to_string(rc) + ")"};
    return readRun(runDir, batch);
  };

  auto slow = train("planted", planted, slowMs);
  if (!slow) return stave::cli::reportErrors(kCmd, slow.errors());
  const Finding* dataBound = nullptr;
  for (const auto& f : slow->report.findings)
    if (f.rule == "data_bound") dataBound = &f;
  if (!dataBound || dataBound->advice.empty()) {
    std::string rules;
    for (const auto& f : slow->report.findings) rules += " " + f.rule;
    std::cerr << "stave-train bench doctor: the doctor did not call the planted run data-bound "
                 "(findings:"
              << (rules.empty() ? " none" : rules) << ", data wait "
              << std::lround(slow->dataWaitShare * 100) << "%); try a larger --slow-read-ms\n";
    return stave::cli::kProblems;
  }
  // The same run with the doctor's advice applied on top of the planted settings.
  std::vector<std::string> advised;
  nlohmann::json adviceJson = nlohmann::json::object();
  for (const auto& ad : dataBound->advice) adviceJson[ad.key] = ad.value;
  for (const auto& o : planted)  // the planted settings the advice does not replace
    if (!adviceJson.contains(o.substr(0, o.find('=')))) advised.push_back(o);
  for (const auto& ad : dataBound->advice) advised.push_back(ad.key + "=" + ad.value);
  auto fixed = train("advised", advised, slowMs);
  if (!fixed) return stave::cli::reportErrors(kCmd, fixed.errors());
  auto fast = train("reference", planted, 0);
  if (!fast) return stave::cli::reportErrors(kCmd, fast.errors());

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
      {"data", fs::absolute(dataYaml).string()},
      {"imgsz", imgsz},
      {"batch", batch},
      {"epochs", epochs},
      {"planted", runJson(slow.value(), planted, slowMs)},
      {"advice", adviceJson},
      {"advice_text", adviceText(dataBound->advice)},
      {"advised", runJson(fixed.value(), advised, slowMs)},
      {"reference", runJson(fast.value(), planted, 0)},
      {"lost_images_per_s", lost},
      {"recovered_fraction", recovered},
      {"target", kTarget},
      {"meets_target", lost > 0 && recovered >= kTarget}};
  if (keep) out["work_dir"] = fs::absolute(work).string();
  std::cout << out.dump(2) << "\n";
  return stave::cli::kOk;
}

/// imgsz, batch, epochs and threads go into the runs' config: checked by its schema rows.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<BenchDoctorOptions>();
  app.add_option("--images", o->images, "training images of the demo dataset made")
      ->type_name("N")
      ->check(atLeast(32))
      ->capture_default_str();
  keyOption(app, "--imgsz", o->imgsz, "imgsz", "training image size", "N");
  keyOption(app, "--batch", o->batch, "batch", "images per batch", "N");
  keyOption(app, "--epochs", o->epochs, "epochs", "epochs of each run (the first fills a cache)",
            "N")
      ->check(atLeast(2));
  app.add_option("--slow-read-ms", o->slowMs, "added to every image read of the slow storage")
      ->type_name("MS")
      ->check(atLeast(1))
      ->capture_default_str();
  app.add_option("--data", o->data, "train on this dataset instead of a demo one")
      ->type_name("D.yaml");
  keyOption(app, "--threads", o->threads, "threads", "intra-op threads (0 = all cores)", "N");
  app.add_option("--out", o->out, "keep the runs and their logs in DIR")->type_name("DIR");
  app.add_flag("--keep", o->keep, "keep the temporary folder of the runs");
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "bench doctor",
    "does the doctor's advice work: planted data-bound run vs advised run vs fast storage (JSON)",
    "stave-train bench doctor [--images N] [--imgsz N] [--batch N] [--epochs N]\n"
    "                         [--slow-read-ms MS] [--data D.yaml] [--threads N] [--out DIR] "
    "[--keep]",
    "Trains three times: with STAVE_FAULT_SLOW_READ_MS (slow storage) and workers=0 cache=none,\n"
    "then the same with the doctor's advice for that run applied, then on fast storage; prints\n"
    "the fraction of the lost images/s the advice recovers (target >= 0.8).",
    setup});
