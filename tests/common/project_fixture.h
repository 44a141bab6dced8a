#pragma once
// Test fixture: a minimal dataset description and a project created for it in a temporary folder.
#include <QTemporaryDir>
#include <QtGlobal>

#include <fstream>

#include "core/config/project.h"

namespace stave::testing {

/// Writes DIR/data.yaml and creates DIR/demo.stave for it; returns the project file's path.
inline QString makeProject(const QTemporaryDir& dir) {
  const std::string data = (dir.path() + "/data.yaml").toStdString();
  std::ofstream(data) << "path: .\ntrain: images\nval: images\nnames: [a]\n";
  auto p = stave::config::createProject(dir.path().toStdString(), "demo", data);
  if (!p) qFatal("%s", p.errorText().c_str());
  return QString::fromStdString(p->path);
}

}  // namespace stave::testing
