#include "widgets/validation_view.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "core/studio/background_job.h"
#include "widgets/box_image_view.h"
#include "widgets/confusion_matrix_view.h"
#include "widgets/label_editor.h"
#include "widgets/live_chart.h"

namespace stave::widgets {
namespace {

/// Reads an image, scaled down to at most `side` pixels on its longer side.
QImage readScaled(const QString& path, int side) {
  QImageReader reader(path);
  reader.setAutoTransform(true);
  const QSize size = reader.size();
  if (size.isValid() && std::max(size.width(), size.height()) > side)
    reader.setScaledSize(size.scaled(side, side, Qt::KeepAspectRatio));
  return reader.read();
}

constexpr int kGallerySide = 360;

enum CurveKind { PrCurve, F1Curve, PCurve, RCurve };

/// The y values of one class's curve of `kind`.
const QVector<double>& classCurve(const studio::ValidationCurve& cv, int kind) {
  return kind == PrCurve   ? cv.prPrecision
         : kind == F1Curve ? cv.f1
         : kind == PCurve  ? cv.precision
                           : cv.recall;
}

// The label editor on the images of `d` that `ids` name (those it has), each with the run's
// predictions to accept, at the one `ids[current]` names.
LabelEditor* editImagesOf(QWidget* window, const studio::ValidationData& d,
                          const QVector<qint64>& ids, int current) {
  QVector<studio::EditorImage> images;
  int at = 0;
  for (int i = 0; i < ids.size(); ++i) {
    const auto it = d.images.constFind(ids[i]);
    if (it == d.images.constEnd()) continue;
    if (i == current) at = int(images.size());
    studio::EditorImage im;
    im.image = it->path;
    im.pixels = true;
    for (const auto& b : it->predictions) im.predictions.push_back({b.cls, b.rect, b.conf, -1});
    images.push_back(im);
  }
  if (images.isEmpty()) return nullptr;
  QStringList names = d.names;
  if (!names.isEmpty()) names.removeLast();  // "background"
  return openLabelEditor(window, studio::datasetRootOf(images.front().image), names, images, at);
}

}  // namespace

struct ValidationView::Loaded {
  QVector<studio::ValidationData> data;
  QVector<QVector<QImage>> gallery;  ///< per gallery row: labels, predictions, second run's
};

ValidationView::ValidationView(QWidget* parent)
    : QWidget(parent),
      m_job(new studio::BackgroundJob(this)),
      m_imageJob(new studio::BackgroundJob(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("validationStatus"));
  m_status->setWordWrap(true);
  layout->addWidget(m_status);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("validationTabs"));
  layout->addWidget(m_tabs, 1);

  buildMatrixTab();
  buildCurvesTab();
  buildGalleryTab();
  buildPerClassTab();

  clear(tr("No validation yet"));
}

void ValidationView::buildMatrixTab() {
  // Confusion matrix, with the images behind the chosen cell.
  auto* matrixTab = new QSplitter(Qt::Horizontal, m_tabs);
  auto* matrices = new QWidget(matrixTab);
  auto* ml = new QVBoxLayout(matrices);
  ml->setContentsMargins(0, 0, 0, 0);
  m_normalised = new QCheckBox(tr("Normalised (each true class sums to 1)"), matrices);
  m_normalised->setObjectName(QStringLiteral("validationNormalised"));
  m_normalised->setChecked(true);
  ml->addWidget(m_normalised);
  auto* pair = new QHBoxLayout;
  for (int k = 0; k < 2; ++k) {
    m_matrix[k] = new ConfusionMatrixView(matrices);
    m_matrix[k]->setObjectName(QStringLiteral("confusionMatrix%1").arg(k));
    m_matrix[k]->setToolTip(tr("Click a cell to see its images"));
    pair->addWidget(m_matrix[k], 1);
    connect(m_matrix[k], &ConfusionMatrixView::cellClicked, this,
            [this, k](int p, int t) { showCell(k, p, t); });
  }
  ml->addLayout(pair, 1);
  auto* images = new QSplitter(Qt::Vertical, matrixTab);
  m_cellImages = new QListWidget(images);
  m_cellImages->setObjectName(QStringLiteral("validationCellImages"));
  auto* imageBox = new QWidget(images);
  auto* il = new QVBoxLayout(imageBox);
  il->setContentsMargins(0, 0, 0, 0);
  m_image = new BoxImageView(imageBox);
  m_image->setObjectName(QStringLiteral("validationImage"));
  m_image->setMessage(tr("Click a cell of the matrix, then an image"));
  m_imageCaption = new QLabel(imageBox);
  m_imageCaption->setWordWrap(true);
  m_imageCaption->setText(
      tr("Labels dashed, predictions solid with their confidence; the boxes "
         "of the cell's classes in red."));
  il->addWidget(m_image, 1);
  auto* captionRow = new QHBoxLayout;
  captionRow->addWidget(m_imageCaption, 1);
  auto* edit = new QPushButton(tr("Edit labels…"), imageBox);
  edit->setObjectName(QStringLiteral("validationEditLabels"));
  edit->setToolTip(
      tr("Fix this image's labels in the label editor, with the predictions to "
         "accept (or double-click an image in the list)"));
  captionRow->addWidget(edit);
  il->addLayout(captionRow);
  connect(edit, &QPushButton::clicked, this, [this] { editListedImages(); });
  connect(m_cellImages, &QListWidget::itemDoubleClicked, this, [this] { editListedImages(); });
  images->setStretchFactor(0, 1);
  images->setStretchFactor(1, 3);
  matrixTab->setStretchFactor(0, 1);
  matrixTab->setStretchFactor(1, 1);
  matrixTab->setSizes({560, 440});  // scaled to the width it gets
  m_tabs->addTab(matrixTab, tr("Confusion matrix"));
  connect(m_normalised, &QCheckBox::toggled, this, &ValidationView::updateMatrices);
  connect(m_cellImages, &QListWidget::currentRowChanged, this, &ValidationView::openListedImage);
}

void ValidationView::buildCurvesTab() {
  // Curves.
  auto* curvesTab = new QWidget(m_tabs);
  auto* cl = new QVBoxLayout(curvesTab);
  auto* bar = new QHBoxLayout;
  m_curveKind = new QComboBox(curvesTab);
  m_curveKind->setObjectName(QStringLiteral("validationCurveKind"));
  m_curveKind->addItem(tr("Precision–recall (IoU 0.5)"), PrCurve);
  m_curveKind->addItem(tr("F1 over confidence"), F1Curve);
  m_curveKind->addItem(tr("Precision over confidence"), PCurve);
  m_curveKind->addItem(tr("Recall over confidence"), RCurve);
  m_curveClass = new QComboBox(curvesTab);
  m_curveClass->setObjectName(QStringLiteral("validationCurveClass"));
  m_curveClass->setMinimumContentsLength(14);
  bar->addWidget(new QLabel(tr("Curve"), curvesTab));
  bar->addWidget(m_curveKind);
  bar->addWidget(new QLabel(tr("Classes"), curvesTab));
  bar->addWidget(m_curveClass);
  bar->addStretch(1);
  cl->addLayout(bar);
  m_curves = new QCustomPlot(curvesTab);
  m_curves->setObjectName(QStringLiteral("validationCurves"));
  m_curves->setMinimumHeight(220);
  m_curves->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_curves->legend->setVisible(true);
  m_curves->legend->setBrush(QColor(255, 255, 255, 220));
  m_curves->legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
  cl->addWidget(m_curves, 1);
  m_tabs->addTab(curvesTab, tr("Curves"));
  connect(m_curveKind, &QComboBox::currentIndexChanged, this, &ValidationView::updateCurves);
  connect(m_curveClass, &QComboBox::currentIndexChanged, this, &ValidationView::updateCurves);
}

void ValidationView::buildGalleryTab() {
  // Gallery.
  auto* scroll = new QScrollArea(m_tabs);
  scroll->setWidgetResizable(true);
  m_gallery = new QWidget(scroll);
  m_galleryGrid = new QGridLayout(m_gallery);
  scroll->setWidget(m_gallery);
  m_tabs->addTab(scroll, tr("Gallery"));
}

void ValidationView::buildPerClassTab() {
  // Per class.
  m_table = new QTableWidget(m_tabs);
  m_table->setObjectName(QStringLiteral("validationPerClass"));
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSortingEnabled(true);
  m_table->verticalHeader()->setVisible(false);
  m_tabs->addTab(m_table, tr("Per class"));
}

bool ValidationView::busy() const {
  return m_job->busy();
}

QStringList ValidationView::shownNames(const studio::ValidationData& d) const {
  QStringList names = d.names;
  if (!names.isEmpty()) names.last() = tr("background");  // the engine's word, translated
  return names;
}

QString ValidationView::runName(int k) const {
  return k < m_titles.size() && !m_titles[k].isEmpty() ? m_titles[k]
                                                       : QFileInfo(m_dirs.value(k)).dir().dirName();
}

void ValidationView::clear(const QString& message) {
  m_dirs.clear();
  m_titles.clear();
  m_data.clear();
  m_status->setText(message);
  for (auto* m : m_matrix) {
    m->setMatrix({}, {});
    m->setTitle({});
    m->setMessage(message);
  }
  m_matrix[1]->setVisible(false);
  m_cellImages->clear();
  m_image->clear();
  m_image->setMessage(tr("Click a cell of the matrix, then an image"));
  m_curves->clearGraphs();
  m_curves->clearItems();
  m_curves->replot();
  m_table->clear();
  m_table->setRowCount(0);
  m_table->setColumnCount(0);
  updateGallery({});
}

void ValidationView::showFolders(const QStringList& dirs, const QStringList& titles) {
  const bool same = dirs == m_dirs;
  m_dirs = dirs.mid(0, 2);
  m_titles = titles.mid(0, 2);
  if (m_dirs.isEmpty()) return clear(tr("No run chosen"));
  if (!same) m_status->setText(tr("Reading the validation views…"));
  const QStringList read = m_dirs;
  m_job->run<Loaded>(
      [read] {
        Loaded out;
        for (const QString& dir : read) out.data.push_back(studio::readValidationData(dir));
        // The gallery's pictures (file work, here rather than on the GUI thread).
        const auto& first = out.data.first();
        for (const auto& item : first.gallery) {
          QVector<QImage> row{readScaled(item.labelsPath, kGallerySide),
                              readScaled(item.predictionsPath, kGallerySide)};
          if (out.data.size() > 1) {
            QImage other;
            for (const auto& g : out.data[1].gallery)
              if (g.image == item.image) other = readScaled(g.predictionsPath, kGallerySide);
            row.push_back(other);
          }
          out.gallery.push_back(row);
        }
        return out;
      },
      [this](Loaded loaded) { setLoaded(loaded); },
      [this](const QString& error) {
        clear(tr("The validation views could not be read: %1").arg(error));
      });
}

void ValidationView::setLoaded(const Loaded& read) {
  m_data = read.data;
  QStringList lines;
  for (int k = 0; k < m_data.size(); ++k) {
    const auto& d = m_data[k];
    const QString who = m_data.size() > 1 ? runName(k) + QStringLiteral(": ") : QString();
    if (!d.present)
      lines << who + tr("no validation views yet (they are written after each validation; runs "
                        "from before this version have none)");
    else if (!d.error.isEmpty())
      lines << who + tr("partly read: %1").arg(d.error);
    else
      lines << who + tr("%1 classes; matrix at confidence %2 and IoU %3; in %4")
                         .arg(d.classCount())
                         .arg(d.matrixConf)
                         .arg(d.matrixIou)
                         .arg(QDir::toNativeSeparators(d.dir));
  }
  m_status->setText(lines.join(QLatin1Char('\n')));
  {
    const QSignalBlocker block(m_curveClass);
    const QString keep = m_curveClass->currentText();
    m_curveClass->clear();
    m_curveClass->addItem(tr("All classes"), -1);
    if (!m_data.isEmpty())
      for (const auto& c : m_data.first().curves)
        m_curveClass->addItem(c.name.isEmpty() ? QString::number(c.cls) : c.name, c.cls);
    const int i = m_curveClass->findText(keep);
    m_curveClass->setCurrentIndex(i >= 0 ? i : 0);
  }
  updateMatrices();
  updateCurves();
  updateTable();
  updateGallery(read.gallery);
  if (m_cell.first >= 0 && m_cellRun < m_data.size())
    showCell(m_cellRun, m_cell.first, m_cell.second);
  emit loaded();
}

void ValidationView::updateMatrices() {
  for (int k = 0; k < 2; ++k) {
    auto* m = m_matrix[k];
    m->setVisible(k < std::max<int>(1, static_cast<int>(m_data.size())));
    m->setNormalised(m_normalised->isChecked());
    if (k >= m_data.size()) continue;
    const auto keep = m->selectedCell();
    m->setMatrix(shownNames(m_data[k]), m_data[k].counts);
    m->setTitle(m_data.size() > 1 ? runName(k) : QString());
    m->setMessage(m_data[k].present ? tr("No confusion matrix") : tr("No validation yet"));
    if (keep.first >= 0 && keep.first < m->size() && keep.second < m->size())
      m->selectCell(keep.first, keep.second);
  }
}

void ValidationView::showCell(int k, int predicted, int truth) {
  m_cellRun = k;
  m_cell = {predicted, truth};
  for (int j = 0; j < 2; ++j)
    if (j != k) m_matrix[j]->selectCell(-1, -1);
  m_matrix[k]->selectCell(predicted, truth);
  const QSignalBlocker block(m_cellImages);
  m_cellImages->clear();
  if (k >= m_data.size()) return;
  const auto& d = m_data[k];
  const QVector<qint64> ids = d.cellImages.value({predicted, truth});
  for (const qint64 id : ids) {
    const auto it = d.images.constFind(id);
    const QString name =
        it == d.images.constEnd() ? tr("image %1").arg(id) : QFileInfo(it->path).fileName();
    auto* item = new QListWidgetItem(name, m_cellImages);
    item->setData(Qt::UserRole, id);
    if (it != d.images.constEnd())
      item->setToolTip(tr("%1\n%2 labels, %3 predictions")
                           .arg(QDir::toNativeSeparators(it->path))
                           .arg(it->labels.size())
                           .arg(it->predictions.size()));
  }
  const double count = predicted < d.counts.size() ? d.counts[predicted].value(truth) : 0;
  const QStringList names = shownNames(d);
  const QString cell = tr("predicted %1, true %2").arg(names.value(predicted), names.value(truth));
  m_image->clear();
  m_image->setMessage(ids.isEmpty() ? tr("No images kept for %1 (%2 boxes)").arg(cell).arg(count)
                                    : tr("%1: %2 boxes in these %3 images (up to 12 are kept); "
                                         "choose one")
                                          .arg(cell)
                                          .arg(count)
                                          .arg(ids.size()));
  if (!ids.isEmpty()) {
    m_cellImages->setCurrentRow(0);
    openListedImage(0);
  }
}

LabelEditor* ValidationView::editListedImages() {
  if (m_cellRun >= m_data.size() || m_cellImages->count() == 0) return nullptr;
  QVector<qint64> ids;
  for (int i = 0; i < m_cellImages->count(); ++i)
    ids << m_cellImages->item(i)->data(Qt::UserRole).toLongLong();
  return editImagesOf(window(), m_data[m_cellRun], ids, std::max(0, m_cellImages->currentRow()));
}

LabelEditor* ValidationView::editGalleryImage(int row) {
  if (m_data.isEmpty()) return nullptr;
  const auto& d = m_data.first();
  QVector<qint64> ids;
  for (const auto& item : d.gallery) ids << item.image;
  return editImagesOf(window(), d, ids, row);
}

void ValidationView::openListedImage(int row) {
  if (row < 0 || row >= m_cellImages->count() || m_cellRun >= m_data.size()) return;
  const auto& d = m_data[m_cellRun];
  const qint64 id = m_cellImages->item(row)->data(Qt::UserRole).toLongLong();
  const auto it = d.images.constFind(id);
  if (it == d.images.constEnd()) return;
  const studio::ValidationImage image = *it;
  const int predicted = m_cell.first, truth = m_cell.second, background = d.classCount();
  QVector<DrawnBox> boxes;
  const double w = std::max(1, image.width), h = std::max(1, image.height);
  const auto norm = [&](const QRectF& r) {
    return QRectF(r.left() / w, r.top() / h, r.width() / w, r.height() / h);
  };
  for (const auto& b : image.labels) {
    DrawnBox box(norm(b.rect), b.cls);
    box.dashed = true;
    box.highlight = truth != background && b.cls == truth;
    boxes.push_back(box);
  }
  for (const auto& b : image.predictions) {
    DrawnBox box(norm(b.rect), b.cls);
    box.tag = QStringLiteral("%1 %2")
                  .arg(d.names.value(b.cls, QString::number(b.cls)))
                  .arg(b.conf, 0, 'f', 2);
    box.highlight = predicted != background && b.cls == predicted;
    boxes.push_back(box);
  }
  QStringList names = d.names;
  if (!names.isEmpty()) names.removeLast();  // "background"
  m_image->setMessage(tr("Reading %1…").arg(QFileInfo(image.path).fileName()));
  m_image->setImage({});
  const QString path = image.path;
  m_imageJob->run<QImage>(
      [path] { return readScaled(path, 1600); },
      [this, boxes, names, path](QImage img) {
        m_image->setClassNames(names);
        m_image->setBoxes(boxes);
        if (img.isNull())
          m_image->setMessage(
              tr("Cannot read %1 (moved or deleted?)").arg(QDir::toNativeSeparators(path)));
        m_image->setImage(img);
        emit imageOpened();
      });
}

void ValidationView::updateCurves() {
  m_curves->clearGraphs();
  m_curves->clearItems();
  const int kind = m_curveKind->currentData().toInt();
  const int only = m_curveClass->currentData().toInt();
  m_curves->xAxis->setLabel(kind == PrCurve ? tr("recall") : tr("confidence"));
  m_curves->yAxis->setLabel(kind == PrCurve   ? tr("precision")
                            : kind == F1Curve ? tr("F1")
                            : kind == PCurve  ? tr("precision")
                                              : tr("recall"));
  const bool compare = m_data.size() > 1;
  for (int k = 0; k < m_data.size(); ++k) {
    const auto& d = m_data[k];
    if (!d.present || d.curves.isEmpty()) continue;
    const QString prefix = compare ? runName(k) + QStringLiteral(": ") : QString();
    const bool dashed = k == 1;
    const QVector<double>& x = kind == PrCurve ? d.recallGrid : d.conf;
    plotClassCurves(d, kind, only, x, prefix, dashed);
    if (only >= 0) continue;
    plotMeanCurve(d, kind, x, prefix, dashed);
  }
  m_curves->xAxis->setRange(0, 1);
  m_curves->yAxis->setRange(0, 1.02);
  m_curves->legend->setVisible(m_curves->graphCount() > 0);
  m_curves->replot();
}

void ValidationView::addCurve(const QVector<double>& x, const QVector<double>& y,
                              const QString& name, const QColor& color, double width, bool dashed) {
  auto* g = m_curves->addGraph();
  g->setName(name);
  QPen pen(color, width, dashed ? Qt::DashLine : Qt::SolidLine);
  g->setPen(pen);
  const int n = static_cast<int>(std::min(x.size(), y.size()));
  g->setData(x.mid(0, n), y.mid(0, n), true);
}

void ValidationView::plotClassCurves(const studio::ValidationData& d, int kind, int only,
                                     const QVector<double>& x, const QString& prefix, bool dashed) {
  // Per class (thin; the one chosen, or each when there are few).
  const bool each = only >= 0 || d.curves.size() <= 10;
  for (int c = 0; c < d.curves.size() && each; ++c) {
    const auto& cv = d.curves[c];
    if (only >= 0 && cv.cls != only) continue;
    const QVector<double>& y = classCurve(cv, kind);
    QString name = cv.name.isEmpty() ? QString::number(cv.cls) : cv.name;
    if (kind == PrCurve && cv.map50 >= 0) name += QStringLiteral(" %1").arg(cv.map50, 0, 'f', 3);
    if (kind == F1Curve) name += QStringLiteral(" %1").arg(cv.bestF1, 0, 'f', 2);
    addCurve(x, y, prefix + name, seriesColor(cv.cls), only >= 0 ? 2.5 : 1.2, dashed);
    if (kind == F1Curve && only >= 0) {
      auto* dot = new QCPItemTracer(m_curves);
      dot->setStyle(QCPItemTracer::tsCircle);
      dot->setSize(9);
      dot->setPen(QPen(seriesColor(cv.cls), 2));
      dot->position->setCoords(cv.bestF1Conf, cv.bestF1);
    }
  }
}

void ValidationView::plotMeanCurve(const studio::ValidationData& d, int kind,
                                   const QVector<double>& x, const QString& prefix, bool dashed) {
  // The mean over classes, thick, with the best F1 marked.
  QString name;
  QVector<double> y;
  if (kind == PrCurve) {
    y = d.meanPr();
    // The classes' AP50 as the engine reported them; else the area under the mean curve.
    double map = 0;
    const bool reported =
        std::all_of(d.curves.begin(), d.curves.end(),
                    [](const studio::ValidationCurve& c) { return c.map50 >= 0; });
    for (const auto& c : d.curves) map += c.map50;
    map = reported ? map / d.curves.size() : 0.0;
    if (!reported)
      for (double v : y) map += v / std::max<double>(1.0, y.size());
    name = tr("all classes %1 mAP50").arg(map, 0, 'f', 3);
  } else if (kind == F1Curve) {
    y = d.meanF1Curve();
    const auto best = d.bestMeanF1();  // the peak of y: the marker sits on the line drawn
    name = tr("all classes %1 at %2").arg(best.first, 0, 'f', 2).arg(best.second, 0, 'f', 3);
    auto* dot = new QCPItemTracer(m_curves);
    dot->setStyle(QCPItemTracer::tsCircle);
    dot->setSize(10);
    dot->setPen(QPen(QColor(20, 20, 160), 2));
    dot->setBrush(QColor(255, 255, 255));
    dot->position->setCoords(best.second, best.first);
    auto* label = new QCPItemText(m_curves);
    label->setText(
        tr("best F1 %1 at confidence %2").arg(best.first, 0, 'f', 2).arg(best.second, 0, 'f', 3));
    label->position->setCoords(best.second, best.first);
    label->setPositionAlignment(Qt::AlignBottom |
                                (best.second > 0.6 ? Qt::AlignRight : Qt::AlignLeft));
    label->setPadding(QMargins(6, 2, 6, 6));
  } else {
    y = d.meanCurve(kind == PCurve ? QStringLiteral("precision") : QStringLiteral("recall"));
    name = tr("all classes");
  }
  addCurve(x, y, prefix + name, QColor(20, 20, 160), 3, dashed);
}

void ValidationView::updateTable() {
  m_table->setSortingEnabled(false);
  m_table->clear();
  const bool compare = m_data.size() > 1;
  QStringList headers{tr("Class"), tr("Images"), tr("Instances")};
  const QStringList metrics{tr("P"), tr("R"), tr("mAP50"), tr("mAP50-95")};
  for (const QString& m : metrics) headers << (compare ? runName(0) + QStringLiteral(" ") + m : m);
  if (compare) {
    for (const QString& m : metrics) headers << runName(1) + QStringLiteral(" ") + m;
    headers << tr("Δ mAP50-95");
  }
  m_table->setColumnCount(static_cast<int>(headers.size()));
  m_table->setHorizontalHeaderLabels(headers);
  if (m_data.isEmpty()) {
    m_table->setRowCount(0);
    return;
  }
  const auto& rows = m_data[0].perClass;
  m_table->setRowCount(static_cast<int>(rows.size()));
  const auto number = [](double v, int decimals) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, QString::number(v, 'f', decimals));
    item->setData(Qt::UserRole, v);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
  };
  for (int r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    m_table->setItem(r, 0, new QTableWidgetItem(row.name));
    m_table->setItem(r, 1, number(static_cast<double>(row.images), 0));
    m_table->setItem(r, 2, number(static_cast<double>(row.instances), 0));
    const double a[] = {row.precision, row.recall, row.map50, row.map5095};
    for (int j = 0; j < 4; ++j) m_table->setItem(r, 3 + j, number(a[j], 3));
    if (!compare) continue;
    const auto& other = m_data[1].perClass;
    const auto it =
        std::find_if(other.begin(), other.end(),
                     [&](const studio::ValidationClassRow& o) { return o.name == row.name; });
    if (it == other.end()) continue;
    const double b[] = {it->precision, it->recall, it->map50, it->map5095};
    for (int j = 0; j < 4; ++j) m_table->setItem(r, 7 + j, number(b[j], 3));
    auto* delta = number(it->map5095 - row.map5095, 3);
    delta->setForeground(it->map5095 >= row.map5095 ? QColor(0, 128, 0) : QColor(190, 0, 0));
    m_table->setItem(r, 11, delta);
  }
  m_table->resizeColumnsToContents();
  m_table->setSortingEnabled(true);
}

void ValidationView::updateGallery(const QVector<QVector<QImage>>& pictures) {
  while (auto* item = m_galleryGrid->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  const bool compare = m_data.size() > 1;
  QStringList heads{tr("Labels"),
                    compare ? tr("Predictions: %1").arg(runName(0)) : tr("Predictions")};
  if (compare) heads << tr("Predictions: %1").arg(runName(1));
  if (pictures.isEmpty()) {
    auto* none = new QLabel(tr("No gallery images"), m_gallery);
    none->setAlignment(Qt::AlignCenter);
    m_galleryGrid->addWidget(none, 0, 0);
    return;
  }
  for (int c = 0; c < heads.size(); ++c) {
    auto* head = new QLabel(QStringLiteral("<b>%1</b>").arg(heads[c].toHtmlEscaped()), m_gallery);
    head->setAlignment(Qt::AlignCenter);
    m_galleryGrid->addWidget(head, 0, c);
  }
  for (int r = 0; r < pictures.size(); ++r) {
    for (int c = 0; c < pictures[r].size(); ++c) {
      auto* label = new QLabel(m_gallery);
      label->setAlignment(Qt::AlignCenter);
      if (pictures[r][c].isNull())
        label->setText(tr("(not available)"));
      else
        label->setPixmap(QPixmap::fromImage(pictures[r][c]));
      m_galleryGrid->addWidget(label, r + 1, c);
    }
    // The image behind a false positive or a miss may be a label error: fix it from here.
    auto* edit = new QPushButton(tr("Edit labels…"), m_gallery);
    edit->setObjectName(QStringLiteral("validationGalleryEdit%1").arg(r));
    connect(edit, &QPushButton::clicked, this, [this, r] { editGalleryImage(r); });
    m_galleryGrid->addWidget(edit, r + 1, int(heads.size()), Qt::AlignCenter);
  }
  m_galleryGrid->setRowStretch(static_cast<int>(pictures.size()) + 1, 1);
}

}  // namespace stave::widgets
