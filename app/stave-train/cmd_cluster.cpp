// stave-train cluster submit|status|follow|stop|resume|fetch: a Slurm cluster behind SSH from a
// terminal, as the studio does it (core/cluster): the run's local folder in the project's runs/
// mirrors the run folder on the cluster, fed by byte offset over one shared OpenSSH connection.
// The commands of the group are registered together here.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/cluster/follow.h"
#include "core/cluster/mirror.h"
#include "core/cluster/remote_shell.h"
#include "core/cluster/remote_job.h"
#include "core/telemetry/event_log.h"

namespace fs = std::filesystem;
namespace cl = stave::cluster;

namespace {

std::atomic<bool> g_stop{false};

void onClusterStop(int) { g_stop = true; }

struct Common {
  std::string run;       ///< the local run folder
  std::string profiles;  ///< --profiles FILE
};

std::string profilesFile(const std::string& given) { return given.empty() ? cl::defaultProfilesPath() : given; }

void addProfilesOption(CLI::App& app, std::string& var) {
  app.add_option("--profiles", var,
                 "the cluster profiles file (default: the studio's, " + cl::defaultProfilesPath() + ")")
      ->type_name("FILE");
}

/// The run's record and its profile (by the name the record keeps, from this machine's file).
struct RunContext {
  cl::RunRecord record;
  cl::Profile profile;
};

int loadRun(const std::string& command, const Common& c, RunContext* ctx) {
  auto rec = cl::readRunRecord(c.run);
  if (!rec) return stave::cli::reportErrors(command, rec.errors());
  if (!rec->overSsh)
    return stave::cli::usageError(command, c.run + " is not a run on a cluster behind SSH (its cluster_job.json has no "
                                           "\"transport\": \"ssh\"); the studio follows local-Slurm runs");
  auto profile = cl::findProfile(profilesFile(c.profiles), rec->profile);
  if (!profile) return stave::cli::reportErrors(command, profile.errors());
  if (!profile->remote())
    return stave::cli::usageError(command, "cluster profile '" + profile->name + "' has no destination any more");
  if (rec->submissionUnknown) {
    // sbatch's answer was lost when the run was sent: Slurm is asked for the job by its name.
    auto settled = cl::settleLostSubmissionUnlessBusy(c.run, profile.value(), cl::sshRunner(profile->endpoint()));
    if (settled && !settled->submissionUnknown) {
      std::cerr << "stave-train " << command << ": sbatch's answer had been lost; Slurm knows this run's job as " << settled->jobId << "\n";
      rec = settled;
    } else if (rec->jobId.empty() && command != "cluster resume") {
      std::cerr << "stave-train " << command << ": error: sbatch's answer for " << c.run
                << " was lost, and no job named " << rec->jobName << " in " << rec->remoteDir
                << " is known to Slurm yet (or " << profile->destination
                << " cannot be reached now); try again, or `stave-train cluster resume` once it is sure none runs\n";
      return stave::cli::kProblems;
    }
  }
  ctx->record = rec.value();
  ctx->profile = profile.value();
  return stave::cli::kOk;
}

std::string describe(const cl::RunRecord& r, const cl::JobState& s) {
  std::string line = "Slurm job " + r.jobId + " on " + r.profile + ": " + cl::phaseName(s.phase);
  if (!s.state.empty()) line += " (" + s.state + ")";
  if (!s.reason.empty()) line += ": " + s.reason;
  if (!s.exitCode.empty() && s.ended()) line += ", exit code " + s.exitCode;
  return line;
}

// ---- submit ----
struct SubmitOptions : Common {
  std::string project, profile, config;
  std::vector<std::string> overrides;
};

int submit(const SubmitOptions& o) {
  auto profile = cl::findProfile(profilesFile(o.profiles), o.profile);
  if (!profile) return stave::cli::reportErrors("cluster submit", profile.errors());
  if (!profile->remote())
    return stave::cli::usageError("cluster submit",
                                  "cluster profile '" + o.profile + "' has no destination: its Slurm runs on this machine; "
                                  "submit it from the studio, or export it (stave-train export --format slurm) and sbatch it");
  const fs::path runs = fs::absolute(o.project).parent_path() / "runs";
  cl::RemoteSubmission s;
  s.profile = profile.value();
  s.projectFile = fs::absolute(o.project).string();
  s.configName = o.config;
  s.overrides = o.overrides;
  s.localDir = (runs / cl::newRunId(runs.string())).string();
  auto rec = cl::submitRemote(s);
  if (!rec) {
    std::cerr << "stave-train cluster submit: error: " << rec.errorText() << "\n";
    return stave::cli::kProblems;
  }
  std::cout << "submitted Slurm job " << rec->jobId << " to " << o.profile << "\n"
            << "run folder: " << s.localDir << "\n"
            << "on the cluster: " << rec->remoteDir << "\n"
            << "follow it: stave-train cluster follow " << cl::shellWord(s.localDir) << "\n";
  return stave::cli::kOk;
}

stave::cli::RunFunction setupSubmit(CLI::App& app) {
  auto o = std::make_shared<SubmitOptions>();
  app.add_option("PROJECT", o->project, "the project file (.stave)")->required()->type_name("");
  app.add_option("overrides", o->overrides, "key=value settings for this run")->type_name("KEY=VALUE");
  app.add_option("--profile", o->profile, "the cluster profile")->required()->type_name("NAME");
  app.add_option("--config", o->config, "the project's config (default: its active one)")->type_name("NAME");
  addProfilesOption(app, o->profiles);
  return [o] { return submit(*o); };
}

// ---- status ----
int status(const Common& c) {
  RunContext ctx;
  if (int rc = loadRun("cluster status", c, &ctx)) return rc;
  cl::JobState s;
  if (!ctx.record.finalState.empty()) {
    s.state = ctx.record.finalState;
    s.phase = cl::jobPhase(s.state);
    s.exitCode = ctx.record.exitCode;
  } else {
    s = cl::queryJob(ctx.profile, ctx.record.jobId);
    if (!s.error.empty()) {
      std::cerr << "stave-train cluster status: error: " << s.error << "\n";
      return stave::cli::kProblems;
    }
    if (s.ended()) (void)cl::recordEnd(c.run, s);
  }
  std::cout << describe(ctx.record, s) << "\n";
  std::error_code ec;
  const auto size = fs::file_size(fs::path(c.run) / "events.jsonl", ec);
  std::cout << "mirror: " << c.run << " (" << (ec ? 0 : size) << " bytes of events)\n";
  return stave::cli::kOk;
}

// ---- follow ----
struct FollowOptions : Common {
  double period = 1.0;
  bool quiet = false;
};

int follow(const FollowOptions& o) {
  RunContext ctx;
  if (int rc = loadRun("cluster follow", o, &ctx)) return rc;
  std::signal(SIGINT, onClusterStop);
  std::signal(SIGTERM, onClusterStop);
  cl::Mirror mirror(cl::sshRunner(ctx.profile.endpoint()), ctx.record.remoteDir, o.run);
  stave::telemetry::EventLogFormatter formatter(10.0);
  int64_t printed = mirror.offset();  // lines before this follow were shown by an earlier one
  cl::JobState known;
  known.state = ctx.record.finalState;
  known.phase = cl::jobPhase(known.state);
  known.exitCode = ctx.record.exitCode;
  std::string lastError;
  cl::JobFollowOptions f;
  f.periodMs = static_cast<int>(o.period * 1000);
  // Slurm is asked on a thread of its own (a slow squeue never holds up the mirror); the events
  // say more about a running job than Slurm does, so it is asked less often.
  f.statePeriodMs = 5000;
  f.query = [&ctx, known](const std::atomic<bool>* stop) {
    return known.ended() ? known : cl::queryJob(ctx.profile, ctx.record.jobId, stop);
  };
  f.onState = [&](const cl::JobState& s) {
    std::cerr << describe(ctx.record, s) << "\n";
    if (s.ended() && !known.ended()) (void)cl::recordEnd(o.run, s);
  };
  f.onPoll = [&](const cl::MirrorPoll& p) {
    if (!p.error.empty() && p.error != lastError) std::cerr << "stave-train cluster follow: " << p.error << "\n";
    lastError = p.error;
    if (o.quiet || p.eventBytes == 0) return;
    std::ifstream in(fs::path(o.run) / "events.jsonl", std::ios::binary);
    in.seekg(printed);
    std::string line;
    while (std::getline(in, line)) {
      printed += static_cast<int64_t>(line.size()) + 1;
      auto event = stave::telemetry::decodeEvent(line);
      if (!event) continue;
      if (auto text = formatter.format(event.value())) std::cout << *text << std::endl;
    }
  };
  f.stop = &g_stop;
  const cl::JobFollowOutcome outcome = cl::followJob(mirror, f);
  const std::string& error = outcome.error;
  const cl::JobState& last = outcome.last;
  if (!error.empty()) {
    std::cerr << "stave-train cluster follow: error: " << error << "\n";
    return stave::cli::kProblems;
  }
  if (g_stop) {
    std::cerr << "stave-train cluster follow: stopped following; the job goes on (" << describe(ctx.record, last) << ")\n";
    return stave::cli::kOk;
  }
  std::cout << describe(ctx.record, last) << "\nmirror: " << o.run << " (" << mirror.offset() << " bytes of events)\n";
  return last.phase == cl::JobState::Phase::Completed ? stave::cli::kOk : stave::cli::kProblems;
}

// ---- stop ----
int stop(const Common& c) {
  RunContext ctx;
  if (int rc = loadRun("cluster stop", c, &ctx)) return rc;
  const cl::JobState s = cl::queryJob(ctx.profile, ctx.record.jobId);
  if (!s.error.empty()) {
    std::cerr << "stave-train cluster stop: error: " << s.error << "\n";
    return stave::cli::kProblems;
  }
  if (s.ended()) {
    std::cout << describe(ctx.record, s) << ": nothing to stop\n";
    return stave::cli::kOk;
  }
  if (const std::string why = cl::cancelJob(ctx.profile, ctx.record.jobId, s.phase == cl::JobState::Phase::Pending);
      !why.empty()) {
    std::cerr << "stave-train cluster stop: error: " << why << "\n";
    return stave::cli::kProblems;
  }
  std::cout << (s.phase == cl::JobState::Phase::Pending ? "cancelled pending Slurm job " : "sent SIGTERM to Slurm job ")
            << ctx.record.jobId << " (it finishes its step and checkpoints)\n";
  return stave::cli::kOk;
}

// ---- resume ----
struct ResumeOptions : Common {
  int epochs = 0;
};

int resume(const ResumeOptions& o) {
  RunContext ctx;
  if (int rc = loadRun("cluster resume", o, &ctx)) return rc;
  cl::RemoteSubmission s;
  s.profile = ctx.profile;
  s.localDir = o.run;
  s.resume = true;
  s.epochs = o.epochs;
  auto rec = cl::submitRemote(s);
  if (!rec) {
    std::cerr << "stave-train cluster resume: error: " << rec.errorText() << "\n";
    return stave::cli::kProblems;
  }
  std::cout << "resubmitted " << o.run << " as Slurm job " << rec->jobId << " to " << rec->profile << "\n";
  return stave::cli::kOk;
}

// ---- fetch ----
struct FetchOptions : Common {
  std::string which = "best";
};

int fetch(const FetchOptions& o) {
  RunContext ctx;
  if (int rc = loadRun("cluster fetch", o, &ctx)) return rc;
  std::signal(SIGINT, onClusterStop);
  cl::Mirror mirror(cl::sshRunner(ctx.profile.endpoint()), ctx.record.remoteDir, o.run);
  const std::string rel = "weights/" + o.which + ".pt";
  if (const std::string why = mirror.fetchFile(rel, &g_stop); !why.empty()) {
    std::cerr << "stave-train cluster fetch: error: " << why << "\n";
    return stave::cli::kProblems;
  }
  std::cout << "fetched " << (fs::path(o.run) / rel).string() << "\n";
  return stave::cli::kOk;
}

void addRun(CLI::App& app, Common& c) {
  app.add_option("RUN", c.run, "the run's local folder (in the project's runs/)")->required()->type_name("");
  addProfilesOption(app, c.profiles);
}

const char* kNotes =
    "A profile names the login node (an OpenSSH destination: user@host or a Host of ~/.ssh/config, so\n"
    "jump hosts, agents and keys work as in a terminal), the run folder on the cluster and where the\n"
    "nodes see the dataset; docs/distributed.md has an example. ssh runs with BatchMode (no prompt)\n"
    "and one shared connection (ControlMaster); a changed host key stops with OpenSSH's reason.\n"
    "Exit 0 ok, 1 the cluster or the job failed, 2 bad input.";

}  // namespace

STAVE_COMMAND(stave::cli::Command{"cluster submit", "send a project's config to a Slurm cluster behind SSH",
                                  "stave-train cluster submit PROJECT --profile NAME [--config C] [--profiles FILE] [key=value ...]",
                                  std::string("Exports the config as job.sbatch (the dataset as the cluster sees it), writes it into\n"
                                              "<run_folder>/<project>/<run id> on the cluster, runs sbatch there, and makes the run's\n"
                                              "local folder in the project's runs/ (cluster_job.json).\n") + kNotes,
                                  setupSubmit});

STAVE_COMMAND(stave::cli::Command{"cluster status", "how a cluster run's Slurm job stands", "stave-train cluster status RUN [--profiles FILE]",
                                  kNotes, [](CLI::App& app) -> stave::cli::RunFunction {
                                    auto c = std::make_shared<Common>();
                                    addRun(app, *c);
                                    return [c] { return status(*c); };
                                  }});

STAVE_COMMAND(stave::cli::Command{
    "cluster follow", "keep a cluster run's local folder current until its job ends",
    "stave-train cluster follow RUN [--period S] [--quiet] [--profiles FILE]",
    std::string("Reads the cluster's events.jsonl from the mirror's size on (new whole lines only) and\n"
                "appends them; results.csv, config.yaml, the job's output and val/ come along, checkpoints\n"
                "only with `cluster fetch`. A dropped link is retried (1 to 30 s apart) from the same offset.\n"
                "Slurm is asked every 5 s on a thread of its own: a slow squeue never holds up the mirror.\n"
                "Ctrl-C stops following; the job goes on.\n") + kNotes,
    [](CLI::App& app) -> stave::cli::RunFunction {
      auto o = std::make_shared<FollowOptions>();
      addRun(app, *o);
      app.add_option("--period", o->period, "seconds between polls")->type_name("S")->check(stave::cli::numberAbove(0.05))->capture_default_str();
      app.add_flag("--quiet", o->quiet, "print no event lines");
      return [o] { return follow(*o); };
    }});

STAVE_COMMAND(stave::cli::Command{"cluster stop", "stop a cluster run (scancel --signal=TERM: it checkpoints)",
                                  "stave-train cluster stop RUN [--profiles FILE]", kNotes,
                                  [](CLI::App& app) -> stave::cli::RunFunction {
                                    auto c = std::make_shared<Common>();
                                    addRun(app, *c);
                                    return [c] { return stop(*c); };
                                  }});

STAVE_COMMAND(stave::cli::Command{"cluster resume", "resubmit a stopped cluster run for the same remote folder",
                                  "stave-train cluster resume RUN [--epochs N] [--profiles FILE]",
                                  std::string("Refused while a job of the run is pending or running (found by its name, or named by\n"
                                              "the remote folder's run.lock) and while another resume of it runs (the folders'\n"
                                              ".stave_submit.lock): one remote folder, one job at a time.\n") + kNotes,
                                  [](CLI::App& app) -> stave::cli::RunFunction {
                                    auto o = std::make_shared<ResumeOptions>();
                                    addRun(app, *o);
                                    app.add_option("--epochs", o->epochs, "a new total of epochs (default: the run's)")
                                        ->type_name("N")
                                        ->check(stave::cli::atLeast(1));
                                    return [o] { return resume(*o); };
                                  }});

STAVE_COMMAND(stave::cli::Command{"cluster fetch", "copy a cluster run's checkpoint into its local folder",
                                  "stave-train cluster fetch RUN [best|last] [--profiles FILE]", kNotes,
                                  [](CLI::App& app) -> stave::cli::RunFunction {
                                    auto o = std::make_shared<FetchOptions>();
                                    addRun(app, *o);
                                    app.add_option("WHICH", o->which, "best or last (default best)")
                                        ->type_name("best|last")
                                        ->check(CLI::IsMember({"best", "last"}));
                                    return [o] { return fetch(*o); };
                                  }});
