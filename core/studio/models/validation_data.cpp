#include "core/studio/models/validation_data.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include "core/config/json_keys.h"
#include "core/config/json_read.h"
#include "core/studio/engine_text.h"
#include "core/studio/regular_file.h"

#include <algorithm>
#include <cmath>

namespace stave::studio {
namespace {

using json = nlohmann::json;

/// A file too large to be the engine's (images.json holds a few hundred images at most).
constexpr qint64 kMaxFileBytes = 64LL << 20;

/// Reads `name` in `dir` as JSON; the error names the file, the line and the key. A file that
/// is not a regular file (a FIFO would block the reader for good) or is larger than the engine
/// writes is refused before it is read whole.
bool readJson(const QString& dir, const QString& name, json* out, QString* error) {
  QString why;
  const QByteArray text = readRegularFile(QDir(dir).filePath(name), kMaxFileBytes, &why);
  if (!why.isEmpty()) {
    *error = why.replace(QDir(dir).filePath(name), name);
    return false;
  }
  auto parsed = parseJson(std::string_view(text.constData(), static_cast<size_t>(text.size())),
                          name.toStdString());
  if (!parsed) {
    const Error& e = parsed.errors().front();
    *error = QCoreApplication::translate("stave::studio::ValidationData", "%1: line %2: %3%4")
                 .arg(name)
                 .arg(e.line)
                 .arg(e.key.empty()
                          ? QString()
                          : QCoreApplication::translate("stave::studio::ValidationData", "key %1: ")
                                .arg(QString::fromStdString(e.key)))
                 .arg(engineText(e.text, e.message));
    return false;
  }
  *out = std::move(parsed.value());
  if (!out->is_object()) {
    *error = QCoreApplication::translate("stave::studio::ValidationData", "%1: not a JSON object")
                 .arg(name);
    return false;
  }
  return true;
}

/// A JSON type error while reading `name`'s `key`.
struct KeyError {
  QString key;
  QString what;
};

const json& member(const json& j, const char* key, json::value_t type, const QString& path) {
  const auto it = j.find(key);
  const QString where = path.isEmpty() ? QString::fromLatin1(key) : path + QLatin1Char('.') + QLatin1String(key);
  if (it == j.end())
    throw KeyError{where, QCoreApplication::translate("stave::studio::ValidationData", "missing")};
  const bool ok = type == json::value_t::number_float ? it->is_number() : it->type() == type;
  if (!ok)
    throw KeyError{where, QCoreApplication::translate("stave::studio::ValidationData",
                                                      "has the wrong type (%1)")
                              .arg(QString::fromLatin1(it->type_name()))};
  return *it;
}

double number(const json& j, const QString& where) {
  if (!j.is_number())
    throw KeyError{where,
                   QCoreApplication::translate("stave::studio::ValidationData", "is not a number")};
  const double v = j.get<double>();
  if (!std::isfinite(v))
    throw KeyError{where,
                   QCoreApplication::translate("stave::studio::ValidationData", "is not finite")};
  return v;
}

QVector<double> numbers(const json& j, const char* key, const QString& path) {
  const json& a = member(j, key, json::value_t::array, path);
  QVector<double> v;
  v.reserve(static_cast<int>(a.size()));
  for (size_t i = 0; i < a.size(); ++i)
    v.push_back(number(a[i], QStringLiteral("%1.%2[%3]").arg(path, QLatin1String(key)).arg(i)));
  return v;
}

void readMatrix(const json& j, ValidationData* d) {
  const json& names = member(j, "names", json::value_t::array, {});
  for (const auto& n : names) d->names << (n.is_string() ? QString::fromStdString(n.get<std::string>()) : QString());
  d->matrixConf = number(member(j, "conf", json::value_t::number_float, {}), QStringLiteral("conf"));
  d->matrixIou = number(member(j, "iou", json::value_t::number_float, {}), QStringLiteral("iou"));
  const json& counts = member(j, "counts", json::value_t::array, {});
  const int n = static_cast<int>(d->names.size());
  if (static_cast<int>(counts.size()) != n)
    throw KeyError{
        QStringLiteral("counts"),
        QCoreApplication::translate("stave::studio::ValidationData", "has %1 rows for %2 names")
            .arg(counts.size())
            .arg(n)};
  for (int p = 0; p < n; ++p) {
    const json& row = counts[static_cast<size_t>(p)];
    const QString where = QStringLiteral("counts[%1]").arg(p);
    if (!row.is_array() || static_cast<int>(row.size()) != n)
      throw KeyError{where, QCoreApplication::translate("stave::studio::ValidationData",
                                                        "is not a row of %1 numbers")
                                .arg(n)};
    QVector<double> r;
    for (int t = 0; t < n; ++t) r.push_back(number(row[static_cast<size_t>(t)], where));
    d->counts.push_back(r);
  }
  if (const auto it = j.find("cells"); it != j.end() && it->is_array()) {
    for (size_t k = 0; k < it->size(); ++k) {
      const json& c = (*it)[k];
      const QString where = QStringLiteral("cells[%1]").arg(k);
      if (!c.is_object())
        throw KeyError{where, QCoreApplication::translate("stave::studio::ValidationData",
                                                          "is not an object")};
      const int p = static_cast<int>(number(member(c, "predicted", json::value_t::number_float, where), where));
      const int t = static_cast<int>(number(member(c, "true", json::value_t::number_float, where), where));
      if (p < 0 || p >= n || t < 0 || t >= n)
        throw KeyError{where, QCoreApplication::translate("stave::studio::ValidationData",
                                                          "names a cell outside the %1×%1 matrix")
                                  .arg(n)};
      QVector<qint64> images;
      for (const auto& i : member(c, "images", json::value_t::array, where))
        if (i.is_number_integer()) images.push_back(i.get<qint64>());
      d->cellImages[{p, t}] = images;
    }
  }
}

void readCurves(const json& j, ValidationData* d) {
  d->conf = numbers(j, "conf", {});
  d->meanF1 = numbers(j, "mean_f1", {});
  d->operatingConf = number(member(j, "operating_conf", json::value_t::number_float, {}), QStringLiteral("operating_conf"));
  d->recallGrid = numbers(j, "recall", {});
  const json& classes = member(j, "classes", json::value_t::array, {});
  for (size_t k = 0; k < classes.size(); ++k) {
    const json& c = classes[k];
    const QString where = QStringLiteral("classes[%1]").arg(k);
    if (!c.is_object())
      throw KeyError{
          where, QCoreApplication::translate("stave::studio::ValidationData", "is not an object")};
    ValidationCurve v;
    v.cls = static_cast<int>(number(member(c, "class", json::value_t::number_float, where), where));
    if (const auto it = c.find("name"); it != c.end() && it->is_string()) v.name = QString::fromStdString(it->get<std::string>());
    v.precision = numbers(c, "precision", where);
    v.recall = numbers(c, "recall", where);
    v.f1 = numbers(c, "f1", where);
    v.prPrecision = numbers(c, "pr_precision", where);
    v.bestF1 = number(member(c, "best_f1", json::value_t::number_float, where), where + QStringLiteral(".best_f1"));
    v.bestF1Conf = number(member(c, "best_f1_conf", json::value_t::number_float, where), where + QStringLiteral(".best_f1_conf"));
    if (const auto it = c.find("map50"); it != c.end() && it->is_number()) v.map50 = it->get<double>();
    const auto n = d->conf.size();
    if (v.precision.size() != n || v.recall.size() != n || v.f1.size() != n)
      throw KeyError{where,
                     QCoreApplication::translate("stave::studio::ValidationData",
                                                 "curves are not as long as conf (%1 points)")
                         .arg(n)};
    if (v.prPrecision.size() != d->recallGrid.size())
      throw KeyError{where + QStringLiteral(".pr_precision"),
                     QCoreApplication::translate("stave::studio::ValidationData",
                                                 "is not as long as recall (%1 points)")
                         .arg(d->recallGrid.size())};
    d->curves.push_back(v);
  }
}

void readImages(const json& j, const QString& dir, ValidationData* d) {
  const json& images = member(j, "images", json::value_t::object, {});
  for (auto it = images.begin(); it != images.end(); ++it) {
    const QString where = QStringLiteral("images.%1").arg(QString::fromStdString(it.key()));
    bool ok = false;
    const qint64 index = QString::fromStdString(it.key()).toLongLong(&ok);
    if (!ok)
      throw KeyError{where, QCoreApplication::translate("stave::studio::ValidationData",
                                                        "is not a split index")};
    const json& v = it.value();
    if (!v.is_object())
      throw KeyError{
          where, QCoreApplication::translate("stave::studio::ValidationData", "is not an object")};
    ValidationImage im;
    im.path = QString::fromStdString(member(v, "path", json::value_t::string, where).get<std::string>());
    im.width = static_cast<int>(number(member(v, "width", json::value_t::number_float, where), where));
    im.height = static_cast<int>(number(member(v, "height", json::value_t::number_float, where), where));
    const auto boxes = [&](const char* key, bool scored) {
      QVector<ValidationBox> out;
      const json& a = member(v, key, json::value_t::array, where);
      for (size_t k = 0; k < a.size(); ++k) {
        const QString at = QStringLiteral("%1.%2[%3]").arg(where, QLatin1String(key)).arg(k);
        const size_t want = scored ? 6 : 5;
        if (!a[k].is_array() || a[k].size() != want)
          throw KeyError{at, QCoreApplication::translate("stave::studio::ValidationData",
                                                         "is not a list of %1 numbers")
                                 .arg(want)};
        std::vector<double> x;
        for (const auto& e : a[k]) x.push_back(number(e, at));
        ValidationBox b;
        b.cls = static_cast<int>(x[0]);
        size_t o = 1;
        if (scored) b.conf = x[o++];
        b.rect = QRectF(QPointF(x[o], x[o + 1]), QPointF(x[o + 2], x[o + 3]));
        out.push_back(b);
      }
      return out;
    };
    im.labels = boxes("labels", false);
    im.predictions = boxes("predictions", true);
    d->images.insert(index, im);
  }
  if (const auto it = j.find("gallery"); it != j.end() && it->is_array()) {
    for (size_t k = 0; k < it->size(); ++k) {
      const json& g = (*it)[k];
      const QString where = QStringLiteral("gallery[%1]").arg(k);
      if (!g.is_object())
        throw KeyError{where, QCoreApplication::translate("stave::studio::ValidationData",
                                                          "is not an object")};
      ValidationGalleryItem item;
      item.image = static_cast<qint64>(number(member(g, "image", json::value_t::number_float, where), where));
      // Relative to the folder, and kept inside it.
      const auto inside = [&](const char* key) {
        const QString rel = QString::fromStdString(member(g, key, json::value_t::string, where).get<std::string>());
        const QString abs = QDir::cleanPath(QDir(dir).filePath(rel));
        if (!abs.startsWith(QDir::cleanPath(dir) + QLatin1Char('/')))
          throw KeyError{where + QLatin1Char('.') + QLatin1String(key),
                         QCoreApplication::translate("stave::studio::ValidationData",
                                                     "points outside the folder")};
        return abs;
      };
      item.labelsPath = inside("labels");
      item.predictionsPath = inside("predictions");
      d->gallery.push_back(item);
    }
  }
}

void readPerClass(const QString& dir, ValidationData* d) {
  const QString name = QStringLiteral("per_class.csv");
  if (!QFileInfo::exists(QDir(dir).filePath(name))) return;
  QString why;
  const QByteArray bytes = readRegularFile(QDir(dir).filePath(name), kMaxFileBytes, &why);
  if (!why.isEmpty()) {
    d->error = why.replace(QDir(dir).filePath(name), name);
    return;
  }
  QBuffer f;
  f.setData(bytes);
  f.open(QIODevice::ReadOnly | QIODevice::Text);
  int line = 0;
  while (!f.atEnd()) {
    const QString text = QString::fromUtf8(f.readLine()).trimmed();
    ++line;
    if (line == 1 || text.isEmpty()) continue;  // the header
    QStringList x;
    bool ok = splitCsvLine(text, &x) && x.size() == 8;
    ValidationClassRow r;
    if (ok) {
      bool a = false, b = false, c = false, e = false, g = false, h = false, i = false;
      r.cls = x[0].toInt(&a);
      r.name = x[1];
      r.images = x[2].toLongLong(&b);
      r.instances = x[3].toLongLong(&c);
      r.precision = x[4].toDouble(&e);
      r.recall = x[5].toDouble(&g);
      r.map50 = x[6].toDouble(&h);
      r.map5095 = x[7].toDouble(&i);
      ok = a && b && c && e && g && h && i;
    }
    if (!ok) {
      d->error =
          QCoreApplication::translate(
              "stave::studio::ValidationData",
              "%1: line %2: expected class,name,images,instances,precision,recall,mAP50,mAP50-95")
              .arg(name)
              .arg(line);
      return;
    }
    d->perClass.push_back(r);
  }
}

}  // namespace

bool splitCsvLine(const QString& line, QStringList* fields) {
  fields->clear();
  QString cur;
  bool quoted = false;
  for (int i = 0; i < line.size(); ++i) {
    const QChar ch = line[i];
    if (quoted) {
      if (ch == QLatin1Char('"')) {
        if (i + 1 < line.size() && line[i + 1] == QLatin1Char('"')) {
          cur += ch;
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += ch;
      }
    } else if (ch == QLatin1Char('"')) {
      quoted = true;
    } else if (ch == QLatin1Char(',')) {
      *fields << cur;
      cur.clear();
    } else {
      cur += ch;
    }
  }
  *fields << cur;
  return !quoted;
}

QVector<double> ValidationData::meanCurve(const QString& which) const {
  QVector<double> mean(conf.size(), 0.0);
  if (curves.isEmpty()) return mean;
  for (const auto& c : curves) {
    const QVector<double>& v = which == QLatin1String("precision") ? c.precision
                               : which == QLatin1String("recall")  ? c.recall
                                                                   : c.f1;
    for (int i = 0; i < mean.size() && i < v.size(); ++i) mean[i] += v[i];
  }
  for (double& m : mean) m /= curves.size();
  return mean;
}

QVector<double> ValidationData::meanPr() const {
  QVector<double> mean(recallGrid.size(), 0.0);
  if (curves.isEmpty()) return mean;
  for (const auto& c : curves)
    for (int i = 0; i < mean.size() && i < c.prPrecision.size(); ++i) mean[i] += c.prPrecision[i];
  for (double& m : mean) m /= curves.size();
  return mean;
}

QVector<double> ValidationData::meanF1Curve() const {
  return meanF1.isEmpty() ? meanCurve(QStringLiteral("f1")) : meanF1;
}

QPair<double, double> ValidationData::bestMeanF1() const {
  // The peak of the curve the view draws. operatingConf (the smoothed mean's peak, on the
  // engine's finer grid) is not on that curve: a marker there sat below the drawn peak.
  const QVector<double> f1 = meanF1Curve();
  QPair<double, double> best{0, 0};
  for (int i = 0; i < f1.size() && i < conf.size(); ++i)
    if (f1[i] > best.first) best = {f1[i], conf[i]};
  return best;
}

QVector<QVector<double>> normalisedColumns(const QVector<QVector<double>>& counts) {
  QVector<QVector<double>> out = counts;
  const int n = static_cast<int>(counts.size());
  for (int t = 0; t < n; ++t) {
    double sum = 0;
    for (int p = 0; p < n; ++p) sum += counts[p].value(t);
    for (int p = 0; p < n; ++p)
      if (t < out[p].size()) out[p][t] = sum > 0 ? counts[p][t] / sum : 0.0;
  }
  return out;
}

ValidationData readValidationData(const QString& dir) {
  ValidationData d;
  d.dir = dir;
  if (!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("confusion_matrix.json")))) return d;
  d.present = true;
  const struct {
    const char* file;
    void (*read)(const json&, const QString&, ValidationData*);
  } parts[] = {
      {"confusion_matrix.json", [](const json& j, const QString&, ValidationData* v) { readMatrix(j, v); }},
      {"curves.json", [](const json& j, const QString&, ValidationData* v) { readCurves(j, v); }},
      {"images.json", [](const json& j, const QString& folder, ValidationData* v) { readImages(j, folder, v); }},
  };
  for (const auto& part : parts) {
    const QString name = QString::fromLatin1(part.file);
    if (!QFileInfo::exists(QDir(dir).filePath(name))) {
      if (d.error.isEmpty())
        d.error =
            QCoreApplication::translate("stave::studio::ValidationData", "%1: missing").arg(name);
      continue;
    }
    json j;
    QString error;
    if (!readJson(dir, name, &j, &error)) {
      if (d.error.isEmpty()) d.error = error;
      continue;
    }
    try {
      ValidationData read = d;  // a part that fails leaves nothing half-read
      part.read(j, dir, &read);
      d = std::move(read);
    } catch (const KeyError& e) {
      if (d.error.isEmpty())
        d.error = QCoreApplication::translate("stave::studio::ValidationData", "%1: key %2 %3")
                      .arg(name, e.key, e.what);
    } catch (const json::exception& e) {
      if (d.error.isEmpty()) d.error = QStringLiteral("%1: %2").arg(name, QString::fromStdString(withoutJsonPrefix(e.what())));
    }
  }
  const QString before = d.error;
  readPerClass(dir, &d);
  if (!before.isEmpty()) d.error = before;
  return d;
}

}  // namespace stave::studio
