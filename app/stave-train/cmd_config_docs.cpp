// stave-train config-docs: the parameter table (docs/config.md is this command's output).
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/schema.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {}, {});
  if (!a.ok()) return stave::cli::usageError("config-docs", a.error());
  if (!a.positional().empty()) return stave::cli::usageError("config-docs", "takes no arguments");
  std::cout << stave::config::schemaMarkdown();
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"config-docs",
                                  "print every training parameter as a Markdown table",
                                  "stave-train config-docs  (docs/config.md is its output)", run});
