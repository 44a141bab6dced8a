#pragma once
// A hand-made set of validation views (the files `stave-train` writes into runs/<run>/val/, see
// docs/validation.md): two classes, cat and dog, with known matches.
//
//   counts[predicted][true]   true: cat dog background
//   predicted cat                    3   1   1
//   predicted dog                    0   2   0
//   background                       1   0   0
//
// Images 0..2 (100×80 px) at `imagePaths`; image 0 holds two cats and a cat prediction, image 1
// a dog predicted as cat, image 2 a missed cat and a cat found on the background. The gallery
// shows image 0. `scale` multiplies the curves, so two runs' files differ.
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace stave::testing {

inline bool writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

inline bool writeValidationViews(const QString& dir, const QStringList& imagePaths, double scale = 1.0) {
  using json = nlohmann::json;
  if (!QDir().mkpath(dir + QStringLiteral("/gallery"))) return false;
  const json matrix = {
      {"version", 1},
      {"names", {"cat", "dog", "background"}},
      {"conf", 0.25},
      {"iou", 0.45},
      {"counts", {{3, 1, 1}, {0, 2, 0}, {1, 0, 0}}},
      {"cells",
       {{{"predicted", 0}, {"true", 0}, {"images", {0, 1}}},
        {{"predicted", 0}, {"true", 1}, {"images", {1}}},
        {{"predicted", 0}, {"true", 2}, {"images", {2}}},
        {{"predicted", 1}, {"true", 1}, {"images", {1}}},
        {{"predicted", 2}, {"true", 0}, {"images", {2}}}}}};
  const auto s = [scale](double v) { return v * scale; };
  const json curves = {
      {"version", 1},
      {"conf", {0.0, 0.5, 1.0}},
      {"mean_f1", {s(0.6), s(0.7), 0.0}},
      // The smoothed mean's peak (the engine's finer grid) need not be the drawn curve's: the
      // best F1 is marked on the curve drawn, at 0.5 (issue 43 §5.7).
      {"operating_conf", 0.0},
      {"recall", {0.0, 0.5, 1.0}},
      {"classes",
       {{{"class", 0},
         {"name", "cat"},
         {"precision", {s(0.6), s(0.8), 1.0}},
         {"recall", {1.0, 0.75, 0.0}},
         {"f1", {s(0.75), s(0.77), 0.0}},
         {"pr_precision", {1.0, s(0.9), s(0.5)}},
         {"best_f1", s(0.77)},
         {"best_f1_conf", 0.5},
         {"map50", s(0.8)}},
        {{"class", 1},
         {"name", "dog"},
         {"precision", {s(0.5), s(0.6), 1.0}},
         {"recall", {1.0, 0.66, 0.0}},
         {"f1", {s(0.45), s(0.63), 0.0}},
         {"pr_precision", {1.0, s(0.7), s(0.3)}},
         {"best_f1", s(0.63)},
         {"best_f1_conf", 0.5},
         {"map50", s(0.6)}}}}};
  const auto path = [&](int i) { return imagePaths.value(i).toStdString(); };
  const json images = {
      {"version", 1},
      {"images",
       {{"0",
         {{"path", path(0)},
          {"width", 100},
          {"height", 80},
          {"labels", {{0, 10, 10, 40, 40}, {0, 50, 20, 90, 70}}},
          {"predictions", {{0, 0.9, 11, 10, 41, 42}}}}},
        {"1",
         {{"path", path(1)},
          {"width", 100},
          {"height", 80},
          {"labels", {{1, 20, 20, 60, 60}}},
          {"predictions", {{0, 0.55, 21, 19, 61, 59}}}}},
        {"2",
         {{"path", path(2)},
          {"width", 100},
          {"height", 80},
          {"labels", {{0, 5, 5, 30, 30}}},
          {"predictions", {{0, 0.4, 60, 40, 95, 75}}}}}}},
      {"gallery", {{{"image", 0}, {"labels", "gallery/00_labels.jpg"}, {"predictions", "gallery/00_pred.jpg"}}}}};
  const QByteArray csv =
      "class,name,images,instances,precision,recall,mAP50,mAP50-95\n"
      "0,cat,3,4," + QByteArray::number(s(0.8)) + ",0.75," + QByteArray::number(s(0.8)) + "," +
      QByteArray::number(s(0.5)) + "\n" +
      "1,dog,1,3," + QByteArray::number(s(0.6)) + ",0.66," + QByteArray::number(s(0.6)) + "," +
      QByteArray::number(s(0.4)) + "\n";
  const QDir d(dir);
  return writeText(d.filePath(QStringLiteral("confusion_matrix.json")), QByteArray::fromStdString(matrix.dump(1))) &&
         writeText(d.filePath(QStringLiteral("curves.json")), QByteArray::fromStdString(curves.dump(1))) &&
         writeText(d.filePath(QStringLiteral("images.json")), QByteArray::fromStdString(images.dump(1))) &&
         writeText(d.filePath(QStringLiteral("per_class.csv")), csv);
}

}  // namespace stave::testing
