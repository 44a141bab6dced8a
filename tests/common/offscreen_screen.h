#pragma once
// GUI tests that lay a window out for a given screen: the offscreen platform's screen is 800×600
// unless a configuration file names another (Qt's offscreen plugin: configfile=). Call before
// the QApplication is made; without the offscreen platform (a test run on a display) it does
// nothing.
#include <QByteArray>
#include <QFile>
#include <QSize>
#include <QTemporaryDir>
#include <QtGlobal>

namespace stave::testing {

/// Makes the offscreen platform's one screen `size` (96 dpi, no window frames); the file is
/// written into `dir`, which must outlive the QApplication's start. False when it cannot be
/// written.
inline bool useOffscreenScreen(const QTemporaryDir& dir, QSize size) {
  if (qgetenv("QT_QPA_PLATFORM") != "offscreen") return true;
  QFile config(dir.filePath(QStringLiteral("screens.json")));
  if (!config.open(QIODevice::WriteOnly)) return false;
  config.write(QByteArray(R"({"windowFrameMargins": false, "screens": [{"name": "screen", "x": 0, "y": 0, "width": )") +
               QByteArray::number(size.width()) + R"(, "height": )" + QByteArray::number(size.height()) +
               R"(, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
  config.close();
  qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.fileName().toUtf8());
  return true;
}

}  // namespace stave::testing
