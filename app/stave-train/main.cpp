// stave-train: Stave's headless trainer, launcher, worker and tools, in one Qt-free binary.
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/stave-train/command.h"
#include "core/cuda/runtime.h"

namespace {
using stave::cli::Command;

/// The command line's command: one word, or two for a command of a group ("bench loader");
/// sets `words` to how many arguments named it.
const Command* namedCommand(const std::vector<std::string>& args, size_t& words) {
  words = 2;
  if (args.size() >= 2)
    if (const Command* c = stave::cli::findCommand(args[0] + " " + args[1])) return c;
  words = 1;
  return stave::cli::findCommand(args[0]);
}

/// Ultralytics' form, `key=value` for an option that takes a value: max_det=100 is
/// --max-det=100, model=W.pt is --model=W.pt (val's and predict's alias of --weights).
void keyValuesAsOptions(const CLI::App& sub, std::vector<std::string>& args, size_t from) {
  for (size_t i = from; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0 || a[0] == '-') continue;
    std::string flag = "--" + a.substr(0, eq);
    for (char& ch : flag)
      if (ch == '_') ch = '-';
    const CLI::Option* opt = sub.get_option_no_throw(flag);
    if (opt && opt->get_type_size() != 0) args[i] = flag + a.substr(eq);
  }
}

/// What the command could not place (allow_extras), in the words stave-train used before CLI11:
/// "unknown option --x", "unexpected argument 'y'"; "" when there is nothing.
std::string extrasText(const CLI::App& sub) {
  const auto extras = sub.remaining();
  if (extras.empty()) return {};
  const std::string& a = extras.front();
  if (a.size() > 1 && a[0] == '-') return "unknown option " + a.substr(0, a.find('='));
  return "unexpected argument '" + a + "'";
}

/// A CLI11 error in the words stave-train used before it: "--data needs a value".
std::string parseErrorText(const CLI::ParseError& e) {
  std::string text = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) &&
      text.find(" required ") != std::string::npos && text.size() > 8 &&
      text.compare(text.size() - 8, 8, " missing") == 0)
    return text.substr(0, text.find(':')) + " needs a value";
  return text;
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  CLI::App app{"train YOLO detectors on one to many GPUs", "stave-train"};
  app.formatter(std::make_shared<stave::cli::HelpFormatter>());
  app.set_help_flag("-h,--help", "print this help and exit");
  // An option given twice takes its last value, as the hand-written parser did.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // One command per run; it also keeps a positional that is a command's name (history P
  // --compare train train2) a positional.
  app.require_subcommand(1);
  std::map<std::string, CLI::App*> apps;  // commands and groups by name
  std::map<std::string, stave::cli::RunFunction> runs;
  for (const Command* c : stave::cli::commands()) {
    CLI::App* parent = &app;
    std::string leaf = c->name;
    if (const auto space = c->name.find(' '); space != std::string::npos) {
      const std::string group = c->name.substr(0, space);
      CLI::App*& g = apps[group];
      if (!g) g = app.add_subcommand(group, "command")->require_subcommand(1);
      parent = g;
      leaf = c->name.substr(space + 1);
    }
    CLI::App* sub = parent->add_subcommand(leaf, c->summary);
    sub->allow_extras();  // reported below: unknown option --x, unexpected argument 'y'
    runs[c->name] = c->setup(*sub);
    apps[c->name] = sub;
  }

  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << app.help();
    return args.empty() ? stave::cli::kUsage : stave::cli::kOk;
  }
  if (args[0] == "--version") {
    std::cout << "stave-train " STAVE_VERSION "\n";
    return stave::cli::kOk;
  }
  size_t words = 0;
  const Command* cmd = namedCommand(args, words);
  if (!cmd) {
    const auto group = apps.find(args[0]);
    if (group != apps.end() && (args.size() == 1 || args[1] == "--help" || args[1] == "-h")) {
      std::cout << group->second->help();
      return args.size() == 1 ? stave::cli::kUsage : stave::cli::kOk;
    }
    const std::string name = group != apps.end() ? args[0] + " " + args[1] : args[0];
    std::cerr << "stave-train: unknown command '" << name << "' (see stave-train --help)\n";
    return stave::cli::kUsage;
  }
  CLI::App* sub = apps.at(cmd->name);
  if (cmd->keyValueOptions) keyValuesAsOptions(*sub, args, words);
  try {
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
  } catch (const CLI::CallForHelp&) {
    std::cout << sub->help();
    return stave::cli::kOk;
  } catch (const CLI::ParseError& e) {
    // An unknown option first: a missing required one may be its misspelling (--nme).
    const std::string extras = extrasText(*sub);
    return stave::cli::usageError(cmd->name, extras.empty() ? parseErrorText(e) : extras);
  }
  if (const std::string extras = extrasText(*sub); !extras.empty())
    return stave::cli::usageError(cmd->name, extras);
  // LibTorch's CUDA part, where a GPU driver is, before any command touches torch (LibTorch
  // answers "is there CUDA" once per process).
  const auto& gpu = stave::cuda::load();
  if (gpu.failed && gpu.mode == "auto") {
    std::cerr << "stave-train: warning: " << gpu.reason << "; running without CUDA\n";
  } else if (gpu.failed) {  // STAVE_CUDA=1, or a value that is not one of auto, 1, 0
    std::cerr << "stave-train: error: " << gpu.reason << "\n";
    return stave::cli::kUsage;
  }
  try {
    return runs.at(cmd->name)();
  } catch (const std::exception& e) {
    std::cerr << "stave-train " << cmd->name << ": error: " << e.what() << "\n";
    return stave::cli::kProblems;
  }
}
