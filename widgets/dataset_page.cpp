#include "widgets/dataset_page.h"

#include <qcustomplot.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QPainter>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/data/dataset.h"
#include "core/studio/background_job.h"
#include "core/studio/project_document.h"
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
  plot->setMinimumHeight(220);
  return plot;
}

// The image a label file belongs to (any of the usual extensions), "" when none is found.
QString imageOfLabel(const QString& label) {
  QString base = label.left(label.lastIndexOf(QLatin1Char('.')));
  const int at = base.lastIndexOf(QStringLiteral("/labels/"));
  if (at >= 0) base = base.left(at) + QStringLiteral("/images/") + base.mid(at + 8);
  for (const char* ext :
       {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".JPG", ".PNG"})
    if (QFileInfo::exists(base + QLatin1String(ext))) return base + QLatin1String(ext);
  return {};
}
}  // namespace

DatasetPage::DatasetPage(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_job(new studio::BackgroundJob(this)),
      m_problems(new studio::ProblemsModel(this)) {
  setObjectName(QStringLiteral("datasetPage"));
  auto* layout = new QVBoxLayout(this);
  auto* header = new QHBoxLayout;
  m_path = new QLabel(this);
  m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header->addWidget(m_path, 1);
  m_progress = new QProgressBar(this);
  m_progress->setFixedWidth(160);
  m_progress->setFormat(tr("split %v of %m"));
  m_progress->hide();
  header->addWidget(m_progress);
  m_cancelButton = new QPushButton(tr("Cancel"), this);
  m_cancelButton->hide();
  header->addWidget(m_cancelButton);
  m_rescan = new QPushButton(tr("Rescan"), this);
  m_rescan->setObjectName(QStringLiteral("datasetRescan"));
  header->addWidget(m_rescan);
  layout->addLayout(header);
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("datasetMessage"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_message);

  auto* tabs = new QTabWidget(this);
  layout->addWidget(tabs, 1);
  // Summary: counts, classes, box and image sizes.
  auto* summary = new QWidget(tabs);
  auto* grid = new QGridLayout(summary);
  m_counts = new QTableWidget(0, 6, summary);
  m_counts->setObjectName(QStringLiteral("datasetCounts"));
  m_counts->setHorizontalHeaderLabels({tr("Split"), tr("Images"), tr("Labelled"), tr("Background"),
                                       tr("Instances"), tr("Problems")});
  m_counts->verticalHeader()->hide();
  m_counts->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_counts->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_counts->setMaximumHeight(130);
  grid->addWidget(m_counts, 0, 0, 1, 2);
  m_histogram = makePlot(tr("Instances per class"), tr("class"), tr("instances"), summary);
  m_histogram->setObjectName(QStringLiteral("classHistogram"));
  grid->addWidget(m_histogram, 1, 0, 1, 2);
  m_boxes = makePlot(tr("Box width × height (of the image)"), tr("width"), tr("height"), summary);
  grid->addWidget(m_boxes, 2, 0);
  m_sizes = makePlot(tr("Image sizes"), tr("width (px)"), tr("height (px)"), summary);
  grid->addWidget(m_sizes, 2, 1);
  grid->setRowStretch(1, 1);
  grid->setRowStretch(2, 1);
  tabs->addTab(summary, tr("Summary"));

  // Problems: the list, and the image of the selected one.
  auto* split = new QSplitter(Qt::Horizontal, tabs);
  m_problemView = new QTableView(split);
  m_problemView->setObjectName(QStringLiteral("problemView"));
  m_problemView->setModel(m_problems);
  m_problemView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_problemView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_problemView->horizontalHeader()->setStretchLastSection(true);
  m_problemView->verticalHeader()->hide();
  m_problemView->setWordWrap(false);
  m_problemView->setTextElideMode(Qt::ElideLeft);  // the file's name matters more than its folder
  auto* right = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(right);
  m_previewInfo = new QLabel(tr("Select a problem to see its image and label."), right);
  m_previewInfo->setObjectName(QStringLiteral("previewInfo"));
  m_previewInfo->setWordWrap(true);
  m_previewInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rightLayout->addWidget(m_previewInfo);
  m_preview = new QLabel(right);
  m_preview->setAlignment(Qt::AlignCenter);
  m_preview->setMinimumSize(320, 240);
  rightLayout->addWidget(m_preview, 1);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  tabs->addTab(split, tr("Problems"));
  connect(m_problemView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) showProblem(current.row());
          });

  connect(m_rescan, &QPushButton::clicked, this, &DatasetPage::rescan);
  connect(m_cancelButton, &QPushButton::clicked, this, &DatasetPage::cancel);
  connect(doc, &studio::ProjectDocument::opened, this, [this] {
    if (m_doc->datasetPath() != m_scannedYaml) rescan();
  });
  connect(doc, &studio::ProjectDocument::closed, this, [this] {
    cancel();
    m_scannedYaml.clear();
  });
  if (doc->isOpen()) rescan();
}

DatasetPage::~DatasetPage() {
  if (m_cancel) m_cancel->store(true);
}

bool DatasetPage::scanning() const {
  return m_job->busy();
}

void DatasetPage::cancel() {
  if (m_cancel) m_cancel->store(true);
}

void DatasetPage::rescan() {
  if (!m_doc->isOpen()) return;
  cancel();
  const QString yaml = m_doc->datasetPath();
  m_scannedYaml = yaml;
  m_path->setText(tr("Dataset: %1").arg(QDir::toNativeSeparators(yaml)));
  m_message->setText(tr("Scanning…"));
  m_progress->setRange(0, 2);
  m_progress->setValue(0);
  m_progress->show();
  m_cancelButton->show();
  m_rescan->setEnabled(false);
  auto flag = std::make_shared<std::atomic<bool>>(false);
  m_cancel = flag;
  QPointer<QProgressBar> bar(m_progress);
  m_job->run<studio::DatasetSummary>(
      [yaml, flag, bar] {
        return studio::scanDataset(yaml, flag.get(), [bar](int done, int total) {
          QMetaObject::invokeMethod(bar, [bar, done, total] {
            if (!bar) return;
            bar->setRange(0, total);
            bar->setValue(done);
          });
        });
      },
      [this](studio::DatasetSummary s) {
        m_progress->hide();
        m_cancelButton->hide();
        m_rescan->setEnabled(true);
        if (s.cancelled) {
          m_message->setText(tr("Scan cancelled; Rescan to start again."));
          return;
        }
        m_summary = std::move(s);
        showSummary();
      },
      [this](const QString& error) {
        m_progress->hide();
        m_cancelButton->hide();
        m_rescan->setEnabled(true);
        m_message->setText(tr("The scan failed: %1").arg(error));
      });
}

void DatasetPage::showSummary() {
  const auto& s = m_summary;
  m_counts->setRowCount(0);
  m_problems->setProblems(s.problems);
  m_problemView->resizeColumnsToContents();
  m_problemView->setColumnWidth(
      studio::ProblemsModel::FileColumn,
      std::min(m_problemView->columnWidth(studio::ProblemsModel::FileColumn), 360));
  for (auto* plot : {m_histogram, m_boxes, m_sizes}) plot->clearPlottables();
  if (!s.error.isEmpty()) {
    m_message->setText(tr("Cannot read the dataset: %1").arg(s.error));
    m_message->setStyleSheet(QStringLiteral("color: #b00020"));
    for (auto* plot : {m_histogram, m_boxes, m_sizes}) plot->replot();
    return;
  }
  m_message->setStyleSheet(QString());
  bool cached = !s.splits.isEmpty();
  for (const auto& sp : s.splits) {
    cached = cached && sp.fromCache;
    const int r = m_counts->rowCount();
    m_counts->insertRow(r);
    const QVariant values[] = {sp.name,       sp.images,    sp.labelled,
                               sp.background, sp.instances, sp.problems};
    for (int c = 0; c < 6; ++c) m_counts->setItem(r, c, new QTableWidgetItem(values[c].toString()));
  }
  m_message->setText(tr("%1 classes, %2 problems%3")
                         .arg(s.names.size())
                         .arg(s.problems.size())
                         .arg(cached ? tr(" (from the scan cache)") : QString()));

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

void DatasetPage::showProblem(int row) {
  if (row < 0 || row >= m_problems->rowCount()) return;
  const auto& p = m_problems->row(row);
  const bool isLabel = p.file.endsWith(QLatin1String(".txt"));
  const QString image = isLabel ? imageOfLabel(p.file) : p.file;
  const QString label =
      isLabel ? p.file : QString::fromStdString(data::labelPathFor(p.file.toStdString()));
  QString where = QDir::toNativeSeparators(p.file);
  if (p.line > 0) where += QStringLiteral(":%1").arg(p.line);
  QString info = tr("%1: %2: %3").arg(where, p.kind, p.message);
  m_previewImage.clear();
  m_preview->clear();
  QImageReader reader(image);
  reader.setAutoTransform(true);
  QImage img = image.isEmpty() ? QImage() : reader.read();
  if (img.isNull()) {
    info +=
        QStringLiteral("\n") +
        (image.isEmpty()
             ? tr("No image found for this label file.")
             : tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(image), reader.errorString()));
    m_previewInfo->setText(info);
    return;
  }
  m_previewImage = image;
  // Scale for the view, then draw every label row: the offending one red, the others green.
  const QSize room = m_preview->size().expandedTo(QSize(320, 240));
  QImage shown = img.scaled(room, Qt::KeepAspectRatio, Qt::SmoothTransformation)
                     .convertToFormat(QImage::Format_RGB32);
  QPainter painter(&shown);
  QFile f(label);
  if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    int lineNo = 0;
    while (!f.atEnd()) {
      ++lineNo;
      const QStringList cols = QString::fromUtf8(f.readLine()).simplified().split(QLatin1Char(' '));
      if (cols.size() < 5) continue;
      bool ok[4];
      const double cx = cols[1].toDouble(&ok[0]), cy = cols[2].toDouble(&ok[1]);
      const double w = cols[3].toDouble(&ok[2]), h = cols[4].toDouble(&ok[3]);
      if (!(ok[0] && ok[1] && ok[2] && ok[3])) continue;
      const bool bad = isLabel && lineNo == p.line;
      painter.setPen(QPen(bad ? QColor(220, 30, 30) : QColor(40, 200, 90), bad ? 3 : 2));
      const QRectF r((cx - w / 2) * shown.width(), (cy - h / 2) * shown.height(), w * shown.width(),
                     h * shown.height());
      painter.drawRect(r);
      // The class name (or the raw id when it names no class) on a filled tag above the box.
      const int cls = cols[0].toInt();
      const QString name =
          cls >= 0 && cls < m_summary.names.size() ? m_summary.names[cls] : cols[0];
      const QString tag = bad ? tr("line %1: %2").arg(lineNo).arg(name) : name;
      const QRectF tagRect(r.left(), std::max(0.0, r.top() - 16),
                           painter.fontMetrics().horizontalAdvance(tag) + 6, 16);
      painter.fillRect(tagRect, painter.pen().color());
      painter.setPen(Qt::white);
      painter.drawText(tagRect.adjusted(3, 0, 0, 0), Qt::AlignVCenter, tag);
    }
  }
  painter.end();
  m_preview->setPixmap(QPixmap::fromImage(shown));
  m_previewInfo->setText(info);
}

QString DatasetPage::previewText() const {
  return m_previewInfo->text();
}

}  // namespace stave::widgets
