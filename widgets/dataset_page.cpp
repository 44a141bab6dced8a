#include "widgets/dataset_page.h"

#include <qcustomplot.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/data/dataset.h"
#include "core/studio/project/project_document.h"
#include "core/studio/models/thumbnail_loader.h"
#include "widgets/augment_view.h"
#include "widgets/box_image_view.h"
#include "widgets/dataset_gallery.h"
#include "widgets/draft_labels_dialog.h"
#include "widgets/label_editor.h"
#include "widgets/label_issues_view.h"
#include "widgets/live_chart.h"

namespace stave::widgets {
namespace {
QCustomPlot* makePlot(const QString& title, const QString& x, const QString& y, QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(
      0, 0, new QCPTextElement(plot, title, QFont(plot->font().family(), 10, QFont::Bold)));
  plot->xAxis->setLabel(x);
  plot->yAxis->setLabel(y);
  plot->setMinimumHeight(200);
  return plot;
}

// Label files are small; one larger than this is not read for the preview (the GUI thread
// must not stall on it).
constexpr qint64 kMaxLabelBytes = 1 << 20;

// Aspect bins: log2(width / height) from -3 to 3 in steps of 1/2 (1:8 ... 8:1).
constexpr int kAspectBins = 13;

// The file column elides from the left: the file's name matters more than its folder.
class ElideLeftDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    option->textElideMode = Qt::ElideLeft;
  }
};
}  // namespace

DatasetPage::DatasetPage(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_scan(new studio::DatasetScan(this)),
      m_summary(std::make_shared<studio::DatasetSummary>()),
      m_problems(new studio::ProblemsModel(this)),
      m_previewLoader(new studio::ThumbnailLoader({1280, 1, 64ll << 20, 4}, this)) {
  setObjectName(QStringLiteral("datasetPage"));
  auto* layout = new QVBoxLayout(this);
  buildHeader(layout);

  m_tabs = new QTabWidget(this);
  layout->addWidget(m_tabs, 1);
  buildSummaryTab();
  buildProblemsTab();

  m_gallery = new DatasetGallery(m_tabs);
  m_tabs->addTab(m_gallery, tr("Gallery"));
  m_augment = new AugmentView(doc, m_tabs);
  m_tabs->addTab(m_augment, tr("Augmentation"));
  m_issues = new LabelIssuesView(m_tabs);
  m_tabs->addTab(m_issues, tr("Label issues"));

  connectSignals();
  if (doc->isOpen()) rescan();
}

void DatasetPage::buildHeader(QVBoxLayout* layout) {
  auto* header = new QHBoxLayout;
  m_path = new QLabel(this);
  m_path->setObjectName(QStringLiteral("datasetPath"));
  m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header->addWidget(m_path, 1);
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("datasetProgress"));
  m_progress->setFixedWidth(260);
  m_progress->hide();
  header->addWidget(m_progress);
  m_cancelButton = new QPushButton(tr("Cancel"), this);
  m_cancelButton->setObjectName(QStringLiteral("datasetCancel"));
  m_cancelButton->hide();
  header->addWidget(m_cancelButton);
  m_labelNew = new QPushButton(tr("Label new images…"), this);
  m_labelNew->setObjectName(QStringLiteral("datasetLabelNew"));
  m_labelNew->setToolTip(
      tr("Images without a label file, in the label editor with a model's "
         "predictions as draft labels"));
  m_labelNew->setEnabled(false);  // until a scan has listed the images
  header->addWidget(m_labelNew);
  m_rescan = new QPushButton(tr("Rescan"), this);
  m_rescan->setObjectName(QStringLiteral("datasetRescan"));
  header->addWidget(m_rescan);
  layout->addLayout(header);
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("datasetMessage"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_message);
}

void DatasetPage::buildSummaryTab() {
  // Summary: counts, classes, box and image sizes.
  auto* summary = new QWidget(m_tabs);
  auto* grid = new QGridLayout(summary);
  m_counts = new QTableWidget(0, 7, summary);
  m_counts->setObjectName(QStringLiteral("datasetCounts"));
  m_counts->setHorizontalHeaderLabels({tr("Split"), tr("Images"), tr("Labelled"), tr("Background"),
                                       tr("Instances"), tr("Left out"), tr("Problems")});
  m_counts->verticalHeader()->hide();
  m_counts->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_counts->setEditTriggers(QAbstractItemView::NoEditTriggers);
  grid->addWidget(m_counts, 0, 0, 1, 3);
  m_histogram = makePlot(tr("Instances per class"), tr("class"), tr("instances"), summary);
  m_histogram->setObjectName(QStringLiteral("classHistogram"));
  grid->addWidget(m_histogram, 1, 0, 1, 3);
  m_boxes = makePlot(tr("Box width × height (of the image)"), tr("width"), tr("height"), summary);
  m_boxes->setObjectName(QStringLiteral("boxScatter"));
  grid->addWidget(m_boxes, 2, 0);
  m_aspects = makePlot(tr("Box aspect (width : height)"), tr("aspect"), tr("boxes"), summary);
  m_aspects->setObjectName(QStringLiteral("aspectHistogram"));
  grid->addWidget(m_aspects, 2, 1);
  m_sizes = makePlot(tr("Image sizes"), tr("width (px)"), tr("height (px)"), summary);
  m_sizes->setObjectName(QStringLiteral("imageSizes"));
  grid->addWidget(m_sizes, 2, 2);
  grid->setRowStretch(1, 1);
  grid->setRowStretch(2, 1);
  m_tabs->addTab(summary, tr("Summary"));
}

void DatasetPage::buildProblemsTab() {
  // Problems: the list, and the image of the selected one.
  auto* split = new QSplitter(Qt::Horizontal, m_tabs);
  m_problemView = new QTableView(split);
  m_problemView->setObjectName(QStringLiteral("problemView"));
  m_problemView->setModel(m_problems);
  m_problemView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_problemView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_problemView->horizontalHeader()->setStretchLastSection(true);
  m_problemView->verticalHeader()->hide();
  m_problemView->setWordWrap(false);
  m_problemView->setItemDelegateForColumn(studio::ProblemsModel::FileColumn,
                                          new ElideLeftDelegate(m_problemView));
  auto* right = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(right);
  m_previewInfo = new QLabel(tr("Select a problem to see its image and label."), right);
  m_previewInfo->setObjectName(QStringLiteral("previewInfo"));
  m_previewInfo->setWordWrap(true);
  m_previewInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rightLayout->addWidget(m_previewInfo);
  m_preview = new BoxImageView(right);
  m_preview->setObjectName(QStringLiteral("problemPreview"));
  m_preview->setMinimumSize(320, 240);
  rightLayout->addWidget(m_preview, 1);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({550, 450});  // scaled to the room there is
  m_tabs->addTab(split, tr("Problems"));
  connect(m_problemView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) showProblem(current.row());
          });
  // A problem's image opens in the label editor (every image with a problem, in list order).
  connect(m_problemView, &QTableView::doubleClicked, this,
          [this](const QModelIndex& index) { editProblemImage(index.row()); });
  connect(m_previewLoader, &studio::ThumbnailLoader::ready, this, [this](const QString& path) {
    if (path == m_problemImage) showProblemImage();
  });
}

void DatasetPage::connectSignals() {
  connect(m_scan, &studio::DatasetScan::progress, this,
          [this](const QString& split, qint64 done, qint64 total) {
            // The bar counts images; very large splits are scaled into int's range.
            const int scale = total > (1 << 30) ? 1024 : 1;
            m_progress->setRange(0, int(std::max<qint64>(1, total / scale)));
            m_progress->setValue(int(done / scale));
            m_progress->setFormat(tr("%1: %2 / %3 images").arg(split).arg(done).arg(total));
          });
  connect(m_scan, &studio::DatasetScan::finished, this, [this] {
    m_progress->hide();
    m_cancelButton->hide();
    m_rescan->setEnabled(true);
    auto s = m_scan->summary();
    if (s && s->cancelled) {
      setMessage(tr("Scan cancelled; Rescan to start again."), false);
      return;
    }
    if (s) m_summary = s;
    showSummary();
  });
  connect(m_rescan, &QPushButton::clicked, this, &DatasetPage::rescan);
  connect(m_labelNew, &QPushButton::clicked, this, &DatasetPage::labelNewImages);
  connect(m_gallery, &DatasetGallery::editRequested, this, &DatasetPage::editLabels);
  connect(m_cancelButton, &QPushButton::clicked, this, &DatasetPage::cancel);
  connect(m_doc, &studio::ProjectDocument::opened, this, [this] {
    if (m_doc->datasetPath() != m_scannedYaml) rescan();
  });
  connect(m_doc, &studio::ProjectDocument::datasetChanged, this, &DatasetPage::rescan);
  connect(m_doc, &studio::ProjectDocument::closed, this, [this] {
    cancel();
    m_scannedYaml.clear();
  });
}

void DatasetPage::watchEditor(LabelEditor* editor) {
  // The scan's counts and problems follow the edits once the editor is closed.
  m_editors.removeAll(nullptr);
  m_editors.push_back(editor);
  connect(editor, &QObject::destroyed, this, [this] {
    if (m_doc->isOpen()) rescan();
  });
}

DatasetPage::~DatasetPage() {
  // An editor still open rescans this page when it goes; it may go after this page (its parent
  // is the window, or this page while it deletes its children).
  for (const auto& editor : m_editors)
    if (editor) editor->disconnect(this);
}

QString DatasetPage::datasetRoot() const {
  const auto& s = *m_summary;
  if (s.train) return QString::fromStdString(s.train->root);
  if (s.images && !s.images->empty()) return studio::datasetRootOf(s.images->front().path);
  return {};
}

LabelEditor* DatasetPage::editLabels(int row) {
  const auto& s = *m_summary;
  if (!s.images) return nullptr;
  QVector<studio::EditorImage> images;
  int current = 0;
  for (int r : m_gallery->shownRows()) {
    const auto& g = (*s.images)[size_t(r)];
    if (!g.usable) continue;
    if (r == row) current = int(images.size());
    images.push_back({g.path, g.labelPath, {}, {}, false});
  }
  if (images.isEmpty()) return nullptr;
  auto* editor = openLabelEditor(window(), datasetRoot(), s.names, images, current);
  watchEditor(editor);
  return editor;
}

LabelEditor* DatasetPage::editProblemImage(int row) {
  const auto& s = *m_summary;
  if (!s.images || row < 0 || row >= m_problems->rowCount()) return nullptr;
  QVector<studio::EditorImage> images;
  QSet<int> seen;
  int current = -1;
  for (int r = 0; r < m_problems->rowCount(); ++r) {
    const int i = m_problems->row(r).image;
    if (i < 0 || size_t(i) >= s.images->size() || !(*s.images)[size_t(i)].usable) continue;
    if (r == row) current = seen.contains(i) ? -2 - i : int(images.size());
    if (seen.contains(i)) continue;
    seen.insert(i);
    const auto& g = (*s.images)[size_t(i)];
    images.push_back({g.path, g.labelPath, {}, {}, false});
  }
  if (current <= -2) {  // the image was listed for an earlier problem
    const QString path = (*s.images)[size_t(-2 - current)].path;
    for (int k = 0; k < images.size(); ++k)
      if (images[k].image == path) current = k;
  }
  if (current < 0) return nullptr;  // no usable image: a file the editor cannot open
  auto* editor = openLabelEditor(window(), datasetRoot(), s.names, images, current);
  watchEditor(editor);
  return editor;
}

DraftLabelsDialog* DatasetPage::labelNewImages() {
  const auto& s = *m_summary;
  QVector<studio::ImageAndLabel> candidates;
  QSet<QString> seen;  // an image listed by two splits is one image
  if (s.images)
    for (const auto& g : *s.images)
      if (g.usable && g.boxes.empty() && !seen.contains(g.path)) {
        seen.insert(g.path);
        candidates.push_back({g.path, g.labelPath});
      }
  auto* dialog = new DraftLabelsDialog(m_doc, candidates, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this,
          [this, dialog] { editNewImages(dialog->images(), dialog->weights(), dialog->conf()); });
  dialog->open();
  return dialog;
}

LabelEditor* DatasetPage::editNewImages(const QVector<studio::ImageAndLabel>& found,
                                        const QString& weights, double conf) {
  if (found.isEmpty()) return nullptr;
  QVector<studio::EditorImage> images;
  for (const auto& f : found)
    images.push_back({f.image, f.label, {}, {}, false, !weights.isEmpty()});
  auto* editor = openLabelEditor(window(), datasetRoot(), m_summary->names, images, 0);
  if (!weights.isEmpty()) editor->predictDrafts(weights, conf);
  watchEditor(editor);
  return editor;
}

bool DatasetPage::scanning() const {
  return m_scan->isRunning();
}

void DatasetPage::cancel() {
  m_scan->cancel();
}

void DatasetPage::setMessage(const QString& text, bool error) {
  m_message->setText(text);
  m_message->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
}

void DatasetPage::rescan() {
  if (!m_doc->isOpen()) return;
  const QString yaml = m_doc->datasetPath();
  m_scannedYaml = yaml;
  m_path->setText(tr("Dataset: %1").arg(QDir::toNativeSeparators(yaml)));
  setMessage(tr("Scanning…"), false);
  m_progress->setRange(0, 0);  // busy until the first count arrives
  m_progress->setFormat(tr("listing images…"));
  m_progress->show();
  m_cancelButton->show();
  m_rescan->setEnabled(false);
  m_scan->start(yaml);
}

void DatasetPage::showSummary() {
  const auto& s = *m_summary;
  m_counts->setRowCount(0);
  showProblemList(s);
  m_gallery->setSummary(s);
  m_labelNew->setEnabled(s.images && !s.images->empty());
  m_issues->setDataset(datasetRoot(), s.names);
  if (s.error.isEmpty()) {
    qint64 train = 0;
    for (const auto& sp : s.splits)
      if (sp.name == QLatin1String("train")) train = sp.images - sp.skipped;
    emit datasetSized(train, int(s.names.size()));
  }
  m_augment->setTrain(s.error.isEmpty() ? s.train : nullptr, s.names);
  for (auto* plot : {m_histogram, m_boxes, m_aspects, m_sizes}) plot->clearPlottables();
  if (!s.error.isEmpty()) {
    setMessage(tr("Cannot read the dataset: %1").arg(s.error), true);
    for (auto* plot : {m_histogram, m_boxes, m_aspects, m_sizes}) plot->replot();
    return;
  }
  showCounts(s);
  plotClassHistogram(s);
  plotSizes(s);
  plotAspects(s);
}

void DatasetPage::showProblemList(const studio::DatasetSummary& s) {
  m_problems->setProblems(s.problems);
  m_problemView->resizeColumnsToContents();
  m_problemView->setColumnWidth(
      studio::ProblemsModel::FileColumn,
      std::min(m_problemView->columnWidth(studio::ProblemsModel::FileColumn), 360));
  m_problemRow = -1;
  m_problemImage.clear();
  m_previewImage.clear();
  m_preview->clear();
  m_preview->setClassNames(s.names);
  // With no problems, say so instead of an empty table (and the count in the tab's title).
  const bool none = s.problems.empty() && s.error.isEmpty();
  m_problemView->setVisible(!none);
  m_preview->setVisible(!none);
  m_previewInfo->setText(none ? tr("No problems: every image and label file was read and passed "
                                   "the checks (readable, labels in range, no duplicates).")
                              : tr("Select a problem to see its image and label."));
  m_tabs->setTabText(m_tabs->indexOf(m_problemView->parentWidget()),
                     tr("Problems (%1)").arg(s.problems.size()));
}

void DatasetPage::showCounts(const studio::DatasetSummary& s) {
  qint64 images = 0, instances = 0;
  for (const auto& sp : s.splits) {
    images += sp.images;
    instances += sp.instances;
    const int r = m_counts->rowCount();
    m_counts->insertRow(r);
    const QVariant values[] = {sp.name,      sp.images,  sp.labelled, sp.background,
                               sp.instances, sp.skipped, sp.problems};
    for (int c = 0; c < 7; ++c) {
      auto* item = new QTableWidgetItem(values[c].toString());
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_counts->setItem(r, c, item);
    }
  }
  // The counts table as tall as its rows.
  m_counts->setFixedHeight(m_counts->horizontalHeader()->height() +
                           m_counts->verticalHeader()->length() + 2 * m_counts->frameWidth() + 2);
  QString text = tr("%1 classes, %2 images, %3 problems%4")
                     .arg(s.names.size())
                     .arg(images)
                     .arg(s.problems.size())
                     .arg(s.fromCache() ? tr(" (from the scan cache)") : QString());
  bool warn = false;
  if (images > 0 && instances == 0) {
    // An images folder without labels beside it: say where labels are looked for.
    text += QLatin1Char('\n') +
            tr("No image has a label: every image is background. Labels are read from a labels/ "
               "folder beside images/ (…/labels/a.txt for …/images/a.jpg).");
    warn = true;
  }
  setMessage(text, warn);
}

void DatasetPage::plotClassHistogram(const studio::DatasetSummary& s) {
  auto* bars = new QCPBars(m_histogram->xAxis, m_histogram->yAxis);
  bars->setBrush(seriesColor(0));
  bars->setPen(Qt::NoPen);
  QVector<double> keys, values;
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  double top = 1;
  for (int c = 0; c < s.instancesPerClass.size(); ++c) {
    keys << c;
    values << double(s.instancesPerClass[c]);
    top = std::max(top, double(s.instancesPerClass[c]));
    ticker->addTick(c, c < s.names.size() ? s.names[c] : QString::number(c));
  }
  bars->setData(keys, values, true);
  m_histogram->xAxis->setTicker(ticker);
  m_histogram->xAxis->setTickLabelRotation(s.names.size() > 8 ? 60 : 0);
  m_histogram->xAxis->setRange(-0.7, std::max(0.7, keys.isEmpty() ? 0.7 : keys.back() + 0.7));
  m_histogram->yAxis->setRange(0, top * 1.15);
  m_histogram->replot(QCustomPlot::rpQueuedReplot);
}

void DatasetPage::plotSizes(const studio::DatasetSummary& s) {
  auto scatter = [](QCustomPlot* plot, const QVector<QPointF>& points, double minTop) {
    auto* g = plot->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, seriesColor(1), 3));
    g->setAdaptiveSampling(true);
    QVector<double> x, y;
    double xTop = minTop, yTop = minTop;
    for (const auto& p : points) {
      x << p.x();
      y << p.y();
      xTop = std::max(xTop, p.x());
      yTop = std::max(yTop, p.y());
    }
    g->setData(x, y);
    plot->xAxis->setRange(0, xTop * 1.05);
    plot->yAxis->setRange(0, yTop * 1.05);
    plot->replot(QCustomPlot::rpQueuedReplot);
  };
  scatter(m_boxes, s.boxSizes, 0.05);
  scatter(m_sizes, s.imageSizes, 32);
}

void DatasetPage::plotAspects(const studio::DatasetSummary& s) {
  // Aspect histogram over log2(width / height), so 1:2 and 2:1 are equally far from square.
  QVector<double> aspectKeys(kAspectBins), aspectCounts(kAspectBins, 0);
  QSharedPointer<QCPAxisTickerText> aspectTicker(new QCPAxisTickerText);
  for (int b = 0; b < kAspectBins; ++b) {
    aspectKeys[b] = -3 + 0.5 * b;
    if (b % 2 == 0) {
      const int e = (b - 6) / 2;
      aspectTicker->addTick(aspectKeys[b], e < 0 ? QStringLiteral("1:%1").arg(1 << -e)
                                                 : QStringLiteral("%1:1").arg(1 << e));
    }
  }
  double aspectTop = 1;
  for (double a : s.boxAspects) {
    if (a <= 0) continue;
    const int b = std::clamp(int(std::lround(std::log2(a) * 2)) + 6, 0, kAspectBins - 1);
    aspectTop = std::max(aspectTop, ++aspectCounts[b]);
  }
  auto* aspectBars = new QCPBars(m_aspects->xAxis, m_aspects->yAxis);
  aspectBars->setBrush(seriesColor(2));
  aspectBars->setPen(Qt::NoPen);
  aspectBars->setWidth(0.45);
  aspectBars->setData(aspectKeys, aspectCounts, true);
  m_aspects->xAxis->setTicker(aspectTicker);
  m_aspects->xAxis->setRange(-3.4, 3.4);
  m_aspects->yAxis->setRange(0, aspectTop * 1.15);
  m_aspects->replot(QCustomPlot::rpQueuedReplot);
}

void DatasetPage::showProblem(int row) {
  if (row < 0 || row >= m_problems->rowCount()) return;
  m_problemRow = row;
  const auto& p = m_problems->row(row);
  const auto& images = m_summary->images;
  const studio::GalleryImage* im = images && p.image >= 0 && size_t(p.image) < images->size()
                                       ? &(*images)[size_t(p.image)]
                                       : nullptr;
  QString where = QDir::toNativeSeparators(p.file);
  if (p.line > 0) where += QStringLiteral(":%1").arg(p.line);
  m_previewInfo->setText(tr("%1: %2: %3").arg(where, p.kind, p.message));
  m_previewImage.clear();
  m_problemImage = im ? im->path : QString();
  m_preview->clear();
  if (!im) {
    m_preview->setMessage(tr("No image belongs to this file."));
    return;
  }
  // Every label row, the offending one in red with its line number. Rows the scan dropped are
  // drawn too when they have box coordinates (a class id out of range, a coordinate past 1).
  QVector<DrawnBox> boxes;
  QFile f(im->labelPath);
  if (f.size() <= kMaxLabelBytes && f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    int lineNo = 0;
    const bool isLabel = p.file == im->labelPath;
    while (!f.atEnd()) {
      ++lineNo;
      const QStringList cols =
          QString::fromUtf8(f.readLine()).simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
      if (cols.size() < 5) continue;
      bool ok[5];
      const int cls = cols[0].toInt(&ok[4]);
      const double cx = cols[1].toDouble(&ok[0]), cy = cols[2].toDouble(&ok[1]);
      const double w = cols[3].toDouble(&ok[2]), h = cols[4].toDouble(&ok[3]);
      if (!(ok[0] && ok[1] && ok[2] && ok[3])) continue;
      DrawnBox b{QRectF(cx - w / 2, cy - h / 2, w, h), ok[4] ? cls : -1};
      b.highlight = isLabel && lineNo == p.line;
      const QString name =
          ok[4] && cls >= 0 && cls < m_summary->names.size() ? m_summary->names[cls] : cols[0];
      if (b.highlight)
        b.tag = tr("line %1: %2").arg(lineNo).arg(name);
      else if (b.cls < 0 || b.cls >= m_summary->names.size())
        b.tag = name;
      boxes.push_back(b);
    }
  }
  // Say so when the offending row cannot be seen: no box in it, or a box off the image.
  if (p.file == im->labelPath && p.line > 0) {
    auto at =
        std::find_if(boxes.begin(), boxes.end(), [](const DrawnBox& b) { return b.highlight; });
    QString note;
    if (at == boxes.end())
      note = tr("Line %1 has no box to draw.").arg(p.line);
    else if (!at->rect.intersects(QRectF(0, 0, 1, 1)))
      note = tr("Line %1's box lies outside the image.").arg(p.line);
    if (!note.isEmpty()) m_previewInfo->setText(m_previewInfo->text() + QLatin1Char('\n') + note);
  }
  m_preview->setBoxes(boxes);
  showProblemImage();
}

void DatasetPage::showProblemImage() {
  if (m_problemImage.isEmpty()) return;
  const auto thumb = m_previewLoader->get(m_problemImage);
  if (!thumb) {
    m_preview->setMessage(tr("Loading…"));
    return;
  }
  if (!thumb->ok()) {
    m_preview->setImage(QImage());
    m_preview->setMessage(
        tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(m_problemImage), thumb->error));
    return;
  }
  m_preview->setImage(thumbnailImage(*thumb));
  m_previewImage = m_problemImage;
}

QString DatasetPage::previewText() const {
  QString text = m_previewInfo->text();
  if (m_previewImage.isEmpty() && !m_preview->message().isEmpty())
    text += QLatin1Char('\n') + m_preview->message();
  return text;
}

}  // namespace stave::widgets
