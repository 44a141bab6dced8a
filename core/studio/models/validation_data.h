#pragma once
// The validation views the engine writes (runs/<run>/val/ or `stave-train val --plots DIR`, see
// docs/validation.md), read for the studio: confusion matrix, P/R/F1/PR curves per class,
// per-class table, the images behind the matrix's cells and the gallery. Plain data; reading
// does file work, so callers run it off the GUI thread (BackgroundJob).
#include <QMap>
#include <QPair>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QVector>

namespace stave::studio {

/// One box of a validation image, in the image's pixels.
struct ValidationBox {
  int cls = 0;
  double conf = 1;  ///< a prediction's confidence (1 for a label)
  QRectF rect;
};

/// An image the matrix's cells or the gallery refer to (images.json).
struct ValidationImage {
  QString path;
  int width = 0, height = 0;
  QVector<ValidationBox> labels, predictions;
};

/// A class's curves over the confidence grid (curves.json).
struct ValidationCurve {
  int cls = 0;
  QString name;
  QVector<double> precision, recall, f1;  ///< over ValidationData::conf
  QVector<double> prPrecision;            ///< over ValidationData::recallGrid (IoU .5)
  double bestF1 = 0, bestF1Conf = 0;
  double map50 = -1;  ///< -1: not given
};

/// One row of per_class.csv.
struct ValidationClassRow {
  int cls = 0;
  QString name;
  qint64 images = 0, instances = 0;
  double precision = 0, recall = 0, map50 = 0, map5095 = 0;
};

/// A gallery entry: an image drawn with its labels and with the predictions.
struct ValidationGalleryItem {
  qint64 image = -1;  ///< split index (key of ValidationData::images)
  QString labelsPath, predictionsPath;  ///< absolute
};

struct ValidationData {
  QString dir;    ///< the folder read
  QString error;  ///< what could not be read (file, line or key); "" when all was read
  /// False when the folder holds no views (not validated yet, or an older run).
  bool present = false;

  // confusion_matrix.json
  QStringList names;  ///< the classes, then "background"
  double matrixConf = 0, matrixIou = 0;
  QVector<QVector<double>> counts;  ///< [predicted][true]
  QMap<QPair<int, int>, QVector<qint64>> cellImages;  ///< (predicted, true) → split indices

  // curves.json
  QVector<double> conf;        ///< the confidence grid of the P/R/F1 curves
  QVector<double> meanF1;      ///< over conf
  double operatingConf = 0;    ///< where the smoothed mean F1 peaks
  QVector<double> recallGrid;  ///< the PR curves' recall points
  QVector<ValidationCurve> curves;

  // per_class.csv, images.json
  QVector<ValidationClassRow> perClass;
  QMap<qint64, ValidationImage> images;
  QVector<ValidationGalleryItem> gallery;

  int classCount() const { return names.isEmpty() ? 0 : static_cast<int>(names.size()) - 1; }
  /// The mean of the per-class curves `which` ("precision", "recall", "f1") over conf.
  QVector<double> meanCurve(const QString& which) const;
  /// The mean PR curve over recallGrid (its mean is mAP50).
  QVector<double> meanPr() const;
  /// The mean F1 over conf as the view draws it: meanF1, else the mean of the classes' curves.
  QVector<double> meanF1Curve() const;
  /// The best mean F1 and its confidence: the maximum of the mean F1 curve as the view draws
  /// it (meanF1, else the mean of the classes' curves), so a marker there sits on its peak.
  QPair<double, double> bestMeanF1() const;
};

/// Reads the views in `dir`. A missing folder or one without confusion_matrix.json gives
/// present = false and no error; a malformed file gives `error` naming the file and the line
/// (JSON), row (CSV) or key at fault, with what could be read kept.
ValidationData readValidationData(const QString& dir);

/// Ultralytics' normalised matrix: each column (a true class) divided by its sum.
QVector<QVector<double>> normalisedColumns(const QVector<QVector<double>>& counts);

/// Splits one CSV line (RFC 4180 quotes); false when a quote is left open.
bool splitCsvLine(const QString& line, QStringList* fields);

}  // namespace stave::studio
