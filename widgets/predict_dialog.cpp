#include "widgets/predict_dialog.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/data/dataset.h"
#include "core/studio/project_document.h"
#include "widgets/live_chart.h"

namespace stave::widgets {
namespace {
// Every detection down to this confidence is kept (as Ultralytics' validation does); the
// slider filters them without running again.
constexpr double kFloor = 0.001;
}  // namespace

PredictDialog::PredictDialog(studio::ProjectDocument* doc, QWidget* parent)
    : QDialog(parent), m_doc(doc), m_job(new studio::PredictJob(this)) {
  setWindowTitle(tr("Predict"));
  setObjectName(QStringLiteral("predictDialog"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  m_weights = new QComboBox(this);
  m_weights->setEditable(true);
  m_weights->setObjectName(QStringLiteral("predictWeights"));
  for (const auto& run : doc->runs())
    for (const char* w : {"weights/best.pt", "weights/last.pt"}) {
      const QString path = QDir(run.path).filePath(QLatin1String(w));
      if (QFileInfo::exists(path)) m_weights->addItem(path);
    }
  auto* weightsRow = new QHBoxLayout;
  weightsRow->addWidget(m_weights, 1);
  auto* browseWeights = new QPushButton(tr("Browse…"), this);
  weightsRow->addWidget(browseWeights);
  form->addRow(tr("Checkpoint:"), weightsRow);
  m_source = new QLineEdit(this);
  m_source->setObjectName(QStringLiteral("predictSource"));
  auto* sourceRow = new QHBoxLayout;
  sourceRow->addWidget(m_source, 1);
  auto* browseImages = new QPushButton(tr("Image…"), this);
  auto* browseFolder = new QPushButton(tr("Folder…"), this);
  sourceRow->addWidget(browseImages);
  sourceRow->addWidget(browseFolder);
  form->addRow(tr("Images:"), sourceRow);
  layout->addLayout(form);
  auto* actions = new QHBoxLayout;
  m_run = new QPushButton(tr("Run"), this);
  m_run->setDefault(true);  // Enter runs
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setEnabled(false);
  m_save = new QPushButton(tr("Save annotated images…"), this);
  m_save->setEnabled(false);
  actions->addWidget(m_run);
  actions->addWidget(m_cancel);
  actions->addStretch(1);
  m_confLabel = new QLabel(this);
  actions->addWidget(m_confLabel);
  m_conf = new QSlider(Qt::Horizontal, this);
  m_conf->setObjectName(QStringLiteral("predictConfidence"));
  m_conf->setRange(0, 100);
  m_conf->setValue(25);
  m_conf->setFixedWidth(200);
  actions->addWidget(m_conf);
  actions->addWidget(m_save);
  layout->addLayout(actions);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("predictStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_status);

  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  m_images = new QListWidget(left);
  m_images->setObjectName(QStringLiteral("predictImages"));
  leftLayout->addWidget(m_images, 2);
  leftLayout->addWidget(new QLabel(tr("Classes shown:"), left));
  m_classes = new QListWidget(left);
  m_classes->setObjectName(QStringLiteral("predictClasses"));
  leftLayout->addWidget(m_classes, 1);
  m_view = new QLabel(split);
  m_view->setAlignment(Qt::AlignCenter);
  m_view->setMinimumSize(480, 360);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  layout->addWidget(split, 1);

  // Class names: the project's dataset.
  if (doc->isOpen()) {
    auto spec = data::loadDataYaml(doc->datasetPath().toStdString());
    if (spec)
      for (const auto& n : spec->names) m_names << QString::fromStdString(n);
  }
  for (int c = 0; c < m_names.size(); ++c) {
    auto* item = new QListWidgetItem(m_names[c], m_classes);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
    item->setForeground(seriesColor(c));
  }

  auto updateConf = [this] {
    m_confLabel->setText(tr("confidence ≥ %1").arg(m_conf->value() / 100.0, 0, 'f', 2));
    showImage();
  };
  updateConf();
  connect(m_conf, &QSlider::valueChanged, this, updateConf);
  connect(m_classes, &QListWidget::itemChanged, this, &PredictDialog::showImage);
  connect(m_images, &QListWidget::currentRowChanged, this, &PredictDialog::showImage);
  connect(browseWeights, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Checkpoint"), m_weights->currentText(),
                                                   tr("Checkpoints (*.pt);;All files (*)"));
    if (!p.isEmpty()) m_weights->setCurrentText(p);
  });
  connect(browseImages, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Image"), m_source->text(),
                                                   tr("Images (*.jpg *.jpeg *.png *.bmp *.webp)"));
    if (!p.isEmpty()) m_source->setText(p);
  });
  connect(browseFolder, &QPushButton::clicked, this, [this] {
    const QString p =
        QFileDialog::getExistingDirectory(this, tr("Images folder"), m_source->text());
    if (!p.isEmpty()) m_source->setText(p);
  });
  connect(m_run, &QPushButton::clicked, this, &PredictDialog::run);
  connect(m_cancel, &QPushButton::clicked, m_job, &studio::PredictJob::cancel);
  connect(m_job, &studio::PredictJob::finished, this, &PredictDialog::finished);
  connect(m_save, &QPushButton::clicked, this, [this] {
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Save annotated images into"));
    if (folder.isEmpty()) return;
    QString error;
    const int n = saveAnnotated(folder, &error);
    m_status->setText(error.isEmpty() ? tr("Saved %1 images in %2").arg(n).arg(folder) : error);
  });
  resize(1100, 760);
}

bool PredictDialog::run() {
  const QString weights = m_weights->currentText().trimmed();
  const QString source = m_source->text().trimmed();
  if (!QFileInfo(weights).isFile()) {
    m_status->setText(tr("Choose a checkpoint file (%1 is not one).").arg(weights));
    return false;
  }
  if (!QFileInfo::exists(source)) {
    m_status->setText(tr("Choose an image or a folder of images (%1 does not exist).").arg(source));
    return false;
  }
  const QString out = studio::PredictJob::freeOutDir(
      m_doc->isOpen() ? QFileInfo(m_doc->path()).absolutePath() : QDir::tempPath());
  QString error;
  if (!m_job->start(weights, source, out, kFloor, &error)) {
    m_status->setText(error);
    return false;
  }
  m_images->clear();
  m_view->clear();
  m_run->setEnabled(false);
  m_cancel->setEnabled(true);
  m_save->setEnabled(false);
  m_status->setText(tr("Predicting… (results in %1)").arg(QDir::toNativeSeparators(out)));
  return true;
}

void PredictDialog::finished() {
  using O = studio::PredictJob::Outcome;
  m_run->setEnabled(true);
  m_cancel->setEnabled(false);
  switch (m_job->outcome()) {
    case O::Finished: {
      int n = 0;
      for (const auto& d : m_job->detections()) n += d.size();
      m_status->setText(
          tr("%1 detections (confidence ≥ 0.001) in %2 images; stave-train wrote %3")
              .arg(n)
              .arg(m_job->images().size())
              .arg(QDir::toNativeSeparators(m_job->outDir())) +
          (m_job->errorText().isEmpty() ? QString() : QStringLiteral("\n") + m_job->errorText()));
      for (const QString& image : m_job->images())
        m_images->addItem(QDir(m_source->text()).relativeFilePath(image));
      for (int i = 0; i < m_images->count(); ++i)
        m_images->item(i)->setData(Qt::UserRole, m_job->images()[i]);
      m_save->setEnabled(!m_job->images().isEmpty());
      if (m_images->count() > 0) m_images->setCurrentRow(0);
      break;
    }
    case O::Cancelled:
      m_status->setText(tr("Cancelled."));
      break;
    default:
      m_status->setText(tr("Prediction failed: %1").arg(m_job->errorText()));
      break;
  }
}

QVector<studio::Detection> PredictDialog::visible(const QString& image) const {
  QVector<studio::Detection> out;
  const double threshold = m_conf->value() / 100.0;
  for (const auto& d : m_job->detections().value(image)) {
    if (d.conf < threshold) continue;
    if (d.cls < m_classes->count() && m_classes->item(d.cls)->checkState() != Qt::Checked) continue;
    out.push_back(d);
  }
  return out;
}

QImage PredictDialog::annotated(const QString& image) const {
  QImageReader reader(image);
  reader.setAutoTransform(true);
  QImage img = reader.read();
  if (img.isNull()) return img;
  img = img.convertToFormat(QImage::Format_RGB32);
  QPainter p(&img);
  const int pen = std::max(1, std::min(img.width(), img.height()) / 200);
  for (const auto& d : visible(image)) {
    p.setPen(QPen(seriesColor(d.cls), pen));
    p.drawRect(d.box);
    const QString name = d.cls < m_names.size() ? m_names[d.cls] : QString::number(d.cls);
    p.drawText(d.box.topLeft() + QPointF(2, -3),
               QStringLiteral("%1 %2").arg(name).arg(d.conf, 0, 'f', 2));
  }
  return img;
}

void PredictDialog::showImage() {
  auto* item = m_images->currentItem();
  if (!item) return;
  const QImage img = annotated(item->data(Qt::UserRole).toString());
  if (img.isNull()) {
    m_view->setText(tr("Cannot read %1").arg(item->data(Qt::UserRole).toString()));
    return;
  }
  m_view->setPixmap(QPixmap::fromImage(img.scaled(m_view->size().expandedTo(QSize(480, 360)),
                                                  Qt::KeepAspectRatio, Qt::SmoothTransformation)));
}

int PredictDialog::saveAnnotated(const QString& folder, QString* error) {
  QDir().mkpath(folder);
  int written = 0;
  for (const QString& image : m_job->images()) {
    const QImage img = annotated(image);
    if (img.isNull()) continue;
    const QString target =
        QDir(folder).filePath(QFileInfo(image).completeBaseName() + QStringLiteral(".png"));
    QSaveFile f(target);  // atomic: a temporary file renamed over the target
    if (!f.open(QIODevice::WriteOnly) || !img.save(&f, "PNG") || !f.commit()) {
      if (error) *error = tr("Cannot write %1").arg(target);
      return written;
    }
    ++written;
  }
  return written;
}

}  // namespace stave::widgets
