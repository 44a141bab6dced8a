// stave-train config-docs: the parameter table (docs/config.md is this command's output).
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/config/schema.h"

namespace {
stave::cli::RunFunction setup(CLI::App& app) {
  auto format = std::make_shared<std::string>("markdown");
  app.add_option("--format", *format,
                 "markdown: docs/config.md is its output; tr: the schema's texts for Qt's "
                 "lupdate (core/studio/schema_strings.cpp)")
      ->type_name("markdown|tr")
      ->check(CLI::IsMember({"markdown", "tr"}))
      ->capture_default_str();
  return [format] {
    std::cout << (*format == "tr" ? stave::config::schemaTranslationSource()
                                  : stave::config::schemaMarkdown());
    return stave::cli::kOk;
  };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"config-docs",
                                  "print every training parameter as a Markdown table",
                                  "stave-train config-docs [--format markdown|tr]", "", setup});
