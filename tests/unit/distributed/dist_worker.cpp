// A real c10d worker for launcher tests (not a test itself): joins the group from the rank
// variables the launcher sets, trains a tiny linear model with GradientSync and reports steps.
//   dist_worker [--steps N] MODE_RANK0 [MODE_RANK1 ...]   (mode picked by $RANK)
// Modes: run (N steps, exit 0), forever (until the ranks agree to stop after SIGTERM),
//        die (SIGKILL on itself at step 3, as kill -9 would do).
#include <signal.h>
#include <unistd.h>

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/distributed/dist_env.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/process_group.h"

namespace {

volatile sig_atomic_t g_term = 0;
void onTerm(int) {
  g_term = 1;
}

void event(const std::string& type, int rank, const nlohmann::json& data) {
  nlohmann::json j{{"type", type}, {"version", 1}, {"rank", rank}, {"time", 0}, {"data", data}};
  std::cout << j.dump() << std::endl;
}

double seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGTERM, onTerm);
  torch::set_num_threads(1);
  int steps = 10;
  std::vector<std::string> modes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc)
      steps = std::atoi(argv[++i]);
    else
      modes.push_back(a);
  }
  auto env = stave::dist::DistEnv::fromEnvironment();
  if (!env) {
    event("error", 0, {{"message", env.errorText()}});
    std::cerr << env.errorText() << std::endl;
    return 1;
  }
  const int rank = env->rank;
  const std::string mode =
      modes.empty() ? "run" : modes[std::min<size_t>(static_cast<size_t>(rank), modes.size() - 1)];
  try {
    stave::dist::ProcessGroupOptions o;
    o.backend = "gloo";
    o.rendezvousTimeoutS = 30;
    o.timeoutS = 120;  // longer than the launcher's grace: survivors stay blocked
    auto pg = stave::dist::ProcessGroup::create(env.value(), o);
    if (!pg) {
      event("error", rank, {{"message", pg.errorText()}});
      std::cerr << pg.errorText() << std::endl;
      return 1;
    }
    auto& group = *pg.value();
    event("hello", rank, {{"pid", getpid()}, {"mode", mode}, {"settings", group.settings()}});
    std::cerr << "rank " << rank << ": joined, mode " << mode << std::endl;

    torch::manual_seed(rank);  // different start: the broadcast must fix it
    torch::nn::Linear net(16, 4);
    group.broadcastParameters(*net);
    stave::dist::GradientSync sync(group, net->parameters(), 25);
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.05));
    auto x = torch::full({8, 16}, 0.1f * (rank + 1));
    for (int step = 0; mode != "run" || step < steps; ++step) {
      if (mode == "die" && step == 3) {
        std::cerr << "rank " << rank << ": killing myself" << std::endl;
        raise(SIGKILL);
      }
      const auto t0 = std::chrono::steady_clock::now();
      opt.zero_grad();
      sync.prepareForBackward();
      net->forward(x).pow(2).mean().backward();
      const double fwdBwd = seconds(t0);
      const double wait = sync.wait();
      opt.step();
      // Every rank must hold the same weights after each step.
      const float checksum = net->weight.sum().item<float>() + net->bias.sum().item<float>();
      const auto all = group.allGather({checksum});
      for (const auto& v : all)
        if (v.at(0) != checksum) {
          event("error", rank, {{"message", "weights differ between ranks"}});
          return 2;
        }
      event("step", rank,
            {{"epoch", 0},
             {"iter", step},
             {"iters_per_epoch", steps},
             {"box_loss", 0.0},
             {"cls_loss", 0.0},
             {"dfl_loss", 0.0},
             {"lr", 0.05},
             {"samples_per_s", 0.0},
             {"checksum", checksum},
             {"timing",
              {{"data_wait", 0.0},
               {"h2d", 0.0},
               {"fwd_bwd", fwdBwd},
               {"allreduce_wait", wait},
               {"optimizer", 0.0},
               {"total", seconds(t0)}}}});
      if (group.anyTrue(g_term != 0)) {
        event("finished", rank, {{"status", "stopped"}, {"iter", step}});
        return 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    event("finished", rank, {{"status", "finished"}});
    return 0;
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    event("error", rank, {{"message", what}});
    std::cerr << "rank " << rank << ": " << what << std::endl;
    return 1;
  }
}
