// stave-train config-docs: the parameter table (docs/config.md is this command's output).
#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/schema.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {"format"}, {});
  if (!a.ok()) return stave::cli::usageError("config-docs", a.error());
  if (!a.positional().empty()) return stave::cli::usageError("config-docs", "takes no arguments");
  const std::string format = a.value("format", "markdown");
  if (format == "markdown")
    std::cout << stave::config::schemaMarkdown();
  else if (format == "tr")
    std::cout << stave::config::schemaTranslationSource();
  else
    return stave::cli::usageError("config-docs",
                                  "--format is markdown or tr, not '" + format + "'");
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"config-docs",
                                  "print every training parameter as a Markdown table",
                                  "stave-train config-docs [--format markdown|tr]\n"
                                  "  markdown (default): docs/config.md is its output\n"
                                  "  tr: the schema's texts for Qt's lupdate "
                                  "(core/studio/schema_strings.cpp)", run});
