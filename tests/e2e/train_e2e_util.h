#pragma once
// Shared pieces of the training end-to-end tests: a small demo dataset, results.csv and
// events.jsonl readers.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTextStream>
#include <QVector>

#include "e2e/e2e_util.h"

namespace stave::e2e {

/// Writes the demo dataset to `dir`; returns the data.yaml path or "" on failure.
inline QString makeDemoDataset(const QString& dir, int train, int val, int imgsz, int seed = 0) {
  auto r = runStaveTrain({"make-demo", "--out", dir, "--train", QString::number(train), "--val", QString::number(val),
                          "--imgsz", QString::number(imgsz), "--seed", QString::number(seed)},
                         {}, 120000);
  return r.exitCode == 0 ? dir + "/data.yaml" : QString();
}

/// results.csv as rows of column -> value (header row gives the names).
inline QVector<QMap<QString, double>> readResults(const QString& path, QStringList* header = nullptr) {
  QVector<QMap<QString, double>> rows;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return rows;
  const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
  if (lines.isEmpty()) return rows;
  const QStringList names = lines[0].split(',');
  if (header) *header = names;
  for (int i = 1; i < lines.size(); ++i) {
    const QStringList cells = lines[i].split(',');
    QMap<QString, double> row;
    for (int c = 0; c < names.size() && c < cells.size(); ++c) row[names[c]] = cells[c].toDouble();
    rows.push_back(row);
  }
  return rows;
}

/// The JSON objects of a JSON-lines text (stdout of stave-train, or events.jsonl).
inline QVector<QJsonObject> parseEvents(const QString& text) {
  QVector<QJsonObject> out;
  for (const auto& line : text.split('\n', Qt::SkipEmptyParts)) {
    const auto doc = QJsonDocument::fromJson(line.toUtf8());
    if (doc.isObject()) out.push_back(doc.object());
  }
  return out;
}

/// Events of `type`.
inline QVector<QJsonObject> eventsOf(const QVector<QJsonObject>& events, const QString& type) {
  QVector<QJsonObject> out;
  for (const auto& e : events) {
    if (e["type"].toString() == type) out.push_back(e);
  }
  return out;
}

/// Reads a whole text file.
inline QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// Writes a small CPU training config to `path` (keys as `key: value` lines); returns success.
inline bool writeTinyConfig(const QString& path, const QString& dataYaml, int imgsz, int epochs, int batch,
                            const QStringList& extra = {}) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  QMap<QString, QString> keys{{"data", "\"" + dataYaml + "\""}, {"model", "yolov8n"}, {"imgsz", QString::number(imgsz)},
                              {"epochs", QString::number(epochs)}, {"batch", QString::number(batch)},
                              {"devices", "cpu"}, {"workers", "2"}, {"close_mosaic", "0"}};
  for (const auto& e : extra) {
    const int colon = e.indexOf(':');
    keys[e.left(colon).trimmed()] = e.mid(colon + 1).trimmed();
  }
  QTextStream s(&f);
  for (auto it = keys.begin(); it != keys.end(); ++it) s << it.key() << ": " << it.value() << "\n";
  return true;
}

}  // namespace stave::e2e
