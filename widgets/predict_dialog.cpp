#include "widgets/predict_dialog.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

#include "core/data/dataset.h"
#include "core/studio/background_job.h"
#include "core/studio/project/project_document.h"
#include "widgets/box_tags.h"
#include "widgets/checkpoint_field.h"
#include "core/studio/run/weights_fetch.h"
#include "widgets/live_chart.h"

namespace stave::widgets {
namespace {
// Every detection down to this confidence is kept (as Ultralytics' validation does); the
// slider filters them without running again.
constexpr double kFloor = 0.001;

QImage readImage(const QString& path) {
  QImageReader reader(path);
  reader.setAutoTransform(true);
  QImage img = reader.read();
  return img.isNull() ? img : img.convertToFormat(QImage::Format_RGB32);
}

// Draws `boxes` (in the original image's pixels, times `scale`) with a class-name tag each.
// Only QImage and QPainter: safe on the saving thread.
void drawBoxes(QImage* img, const QVector<studio::Detection>& boxes, const QStringList& names,
               double scale) {
  QPainter p(img);
  p.setRenderHint(QPainter::Antialiasing);
  const int side = std::min(img->width(), img->height());
  const double pen = std::max(2.0, side / 250.0);
  QFont font = p.font();
  font.setPixelSize(std::max(11, side / 45));
  p.setFont(font);
  const QFontMetricsF fm(font);
  QVector<QRectF> rects;
  QVector<QSizeF> sizes;
  QStringList tags;
  for (const auto& d : boxes) {
    const QColor colour = seriesColor(d.cls);
    const QRectF r(d.box.topLeft() * scale, d.box.bottomRight() * scale);
    p.setPen(QPen(colour, pen));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    const QString name = d.cls >= 0 && d.cls < names.size() ? names[d.cls] : QString::number(d.cls);
    tags << QStringLiteral("%1 %2").arg(name).arg(d.conf, 0, 'f', 2);
    rects.push_back(r);
    sizes.push_back(QSizeF(fm.horizontalAdvance(tags.back()) + 6, fm.height() + 2));
  }
  // Every box before any tag (no line crosses a tag); two detections of one object get a tag
  // each instead of one drawn over the other; the first one (the engine lists a picture's
  // detections most confident first) is placed first and drawn on top.
  const QVector<QRectF> placed = placeBoxTags(rects, sizes, QRectF(img->rect()));
  for (int i = static_cast<int>(boxes.size()) - 1; i >= 0; --i) {
    p.fillRect(placed[i], seriesColor(boxes[i].cls));
    p.setPen(Qt::white);
    p.drawText(placed[i].adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, tags[i]);
  }
}

// One annotated image to write.
struct SaveItem {
  QString image, target;
  QVector<studio::Detection> boxes;
};

struct SaveResult {
  int written = 0;
  QString error;
};

// Every result image of `d` with its visible boxes, to `folder` as PNG; a folder source's
// subfolders are kept so equal names in two of them do not collide.
QVector<SaveItem> saveItemsFor(const PredictDialog& d, const QString& folder) {
  QVector<SaveItem> items;
  const QString source = d.job()->source();
  const bool fromFolder = QFileInfo(source).isDir();
  for (const QString& image : d.job()->images()) {
    const QFileInfo rel(fromFolder ? QDir(source).relativeFilePath(image)
                                   : QFileInfo(image).fileName());
    const QString name = rel.completeBaseName() + QStringLiteral(".png");
    items.push_back(
        {image, QDir(folder).filePath(QDir(rel.path()).filePath(name)), d.visible(image)});
  }
  return items;
}

SaveResult saveItems(const QVector<SaveItem>& items, const QStringList& names) {
  SaveResult r;
  for (const auto& item : items) {
    QImage img = readImage(item.image);
    if (img.isNull()) continue;  // listed as unreadable in the dialog already
    drawBoxes(&img, item.boxes, names, 1.0);
    QDir().mkpath(QFileInfo(item.target).absolutePath());
    QSaveFile f(item.target);  // atomic: a temporary file renamed over the target
    if (!f.open(QIODevice::WriteOnly) || !img.save(&f, "PNG") || !f.commit()) {
      r.error = PredictDialog::tr("Cannot write %1: %2").arg(item.target, f.errorString());
      return r;
    }
    ++r.written;
  }
  return r;
}
}  // namespace

PredictDialog::PredictDialog(studio::ProjectDocument* doc, QWidget* parent)
    : QDialog(parent),
      m_doc(doc),
      m_job(new studio::PredictJob(this)),
      m_saver(new studio::BackgroundJob(this)) {
  setWindowTitle(tr("Predict"));
  setObjectName(QStringLiteral("predictDialog"));
  auto* layout = new QVBoxLayout(this);
  const auto [browseImages, browseFolder] = buildInputForm(layout);
  buildActions(layout);
  buildResultsView(layout);

  // Class names until a run reports the checkpoint's: the project's dataset.
  if (doc->isOpen()) {
    auto spec = data::loadDataYaml(doc->datasetPath().toStdString());
    if (spec)
      for (const auto& n : spec->names) m_projectNames << QString::fromStdString(n);
  }
  setClassNames(m_projectNames);
  m_outLabel->setText(QDir::toNativeSeparators(nextOutDir()));

  connectSignals(browseImages, browseFolder);
  resize(1100, 760);
}

std::pair<QPushButton*, QPushButton*> PredictDialog::buildInputForm(QVBoxLayout* layout) {
  auto* form = new QFormLayout;
  auto* checkpoint = new CheckpointField(m_doc, this);
  m_field = checkpoint;
  m_weights = checkpoint->box();
  m_weights->setObjectName(QStringLiteral("predictWeights"));
  form->addRow(tr("Checkpoint:"), checkpoint);
  m_source = new QLineEdit(this);
  m_source->setObjectName(QStringLiteral("predictSource"));
  m_source->setPlaceholderText(tr("an image, or a folder searched for images"));
  auto* sourceRow = new QHBoxLayout;
  sourceRow->addWidget(m_source, 1);
  auto* browseImages = new QPushButton(tr("Image…"), this);
  auto* browseFolder = new QPushButton(tr("Folder…"), this);
  sourceRow->addWidget(browseImages);
  sourceRow->addWidget(browseFolder);
  form->addRow(tr("Images:"), sourceRow);
  auto* optionsRow = new QHBoxLayout;
  m_iou = new QDoubleSpinBox(this);
  m_iou->setObjectName(QStringLiteral("predictIou"));
  m_iou->setRange(0.05, 1.0);
  m_iou->setSingleStep(0.05);
  m_iou->setDecimals(2);
  m_iou->setValue(studio::PredictOptions{}.iou);
  m_iou->setToolTip(tr("Boxes of one class overlapping more than this are merged (NMS)"));
  optionsRow->addWidget(new QLabel(tr("NMS IoU:"), this));
  optionsRow->addWidget(m_iou);
  m_imgsz = new QSpinBox(this);
  m_imgsz->setObjectName(QStringLiteral("predictImgsz"));
  m_imgsz->setRange(0, 4096);
  m_imgsz->setSingleStep(32);
  m_imgsz->setSpecialValueText(tr("the checkpoint's"));
  m_imgsz->setToolTip(tr("Inference size in pixels, a multiple of 32"));
  optionsRow->addSpacing(16);
  optionsRow->addWidget(new QLabel(tr("Image size:"), this));
  optionsRow->addWidget(m_imgsz);
  optionsRow->addStretch(1);
  form->addRow(tr("Options:"), optionsRow);
  m_outLabel = new QLabel(this);
  m_outLabel->setObjectName(QStringLiteral("predictOut"));
  m_outLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form->addRow(tr("Output:"), m_outLabel);
  layout->addLayout(form);
  return {browseImages, browseFolder};
}

void PredictDialog::buildActions(QVBoxLayout* layout) {
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
}

void PredictDialog::buildResultsView(QVBoxLayout* layout) {
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
  m_view->setObjectName(QStringLiteral("predictView"));
  m_view->setAlignment(Qt::AlignCenter);
  m_view->setMinimumSize(480, 360);
  m_view->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  layout->addWidget(split, 1);
}

void PredictDialog::connectSignals(QPushButton* browseImages, QPushButton* browseFolder) {
  auto updateConf = [this] {
    m_confLabel->setText(tr("confidence ≥ %1").arg(m_conf->value() / 100.0, 0, 'f', 2));
    showImage();
  };
  updateConf();
  connect(m_conf, &QSlider::valueChanged, this, updateConf);
  connect(m_classes, &QListWidget::itemChanged, this, &PredictDialog::showImage);
  connect(m_images, &QListWidget::currentRowChanged, this, &PredictDialog::showImage);
  connect(browseImages, &QPushButton::clicked, this, [this] {
    const QString p =
        QFileDialog::getOpenFileName(this, tr("Image"), m_source->text(),
                                     tr("Images (*.jpg *.jpeg *.png *.bmp *.tif *.tiff *.webp)"));
    if (!p.isEmpty()) m_source->setText(p);
  });
  connect(browseFolder, &QPushButton::clicked, this, [this] {
    const QString p =
        QFileDialog::getExistingDirectory(this, tr("Images folder"), m_source->text());
    if (!p.isEmpty()) m_source->setText(p);
  });
  connect(m_run, &QPushButton::clicked, this, &PredictDialog::run);
  connect(m_cancel, &QPushButton::clicked, m_job, &studio::PredictJob::cancel);
  connect(m_cancel, &QPushButton::clicked, m_field->fetchJob(), &studio::WeightsFetch::cancel);
  connect(m_field->fetchJob(), &studio::WeightsFetch::progress, this,
          [this] { m_status->setText(m_field->fetchJob()->progressText()); });
  connect(m_job, &studio::PredictJob::finished, this, &PredictDialog::finished);
  connect(m_save, &QPushButton::clicked, this, [this] {
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Save annotated images into"));
    if (folder.isEmpty()) return;
    // Reading, drawing and encoding every image is file work: off the GUI thread.
    const QVector<SaveItem> items = saveItemsFor(*this, folder);
    m_save->setEnabled(false);
    m_status->setText(tr("Saving %1 annotated images in %2…")
                          .arg(items.size())
                          .arg(QDir::toNativeSeparators(folder)));
    m_saver->run<SaveResult>([items, names = m_names] { return saveItems(items, names); },
                             [this, folder](SaveResult r) {
                               m_save->setEnabled(true);
                               m_status->setText(r.error.isEmpty()
                                                     ? tr("Saved %1 annotated images in %2")
                                                           .arg(r.written)
                                                           .arg(QDir::toNativeSeparators(folder))
                                                     : r.error);
                             },
                             [this](const QString& message) {
                               m_save->setEnabled(true);
                               m_status->setText(tr("Saving failed: %1").arg(message));
                             });
  });
}

PredictDialog::~PredictDialog() = default;

QString PredictDialog::nextOutDir() const {
  return studio::PredictJob::freeOutDir(m_doc->isOpen() ? QFileInfo(m_doc->path()).absolutePath()
                                                        : QDir::tempPath());
}

void PredictDialog::setClassNames(const QStringList& names) {
  if (names == m_names && m_classes->count() == names.size()) return;
  m_names = names;
  const QSignalBlocker block(m_classes);
  m_classes->clear();
  for (int c = 0; c < m_names.size(); ++c) {
    auto* item = new QListWidgetItem(m_names[c], m_classes);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
    item->setForeground(seriesColor(c));
  }
}

bool PredictDialog::run() {
  const QString weights = m_weights->currentText().trimmed();
  const QString source = m_source->text().trimmed();
  // A run behind SSH: its checkpoint comes from the cluster first, then the prediction starts.
  if (m_field->fetchIfRemote([this](const QString& problem) {
        m_run->setEnabled(true);
        m_cancel->setEnabled(false);
        if (problem.isEmpty())
          run();
        else
          m_status->setText(tr("The checkpoint could not be fetched: %1").arg(problem));
      })) {
    m_status->setText(m_field->fetchJob()->progressText());
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    return true;
  }
  if (!QFileInfo(weights).isFile()) {
    m_status->setText(tr("Choose a checkpoint file (%1 is not one).").arg(weights));
    return false;
  }
  if (!QFileInfo::exists(source)) {
    m_status->setText(tr("Choose an image or a folder of images (%1 does not exist).").arg(source));
    return false;
  }
  if (m_imgsz->value() % 32 != 0) {
    m_status->setText(
        tr("The image size must be a multiple of 32 (%1 is not).").arg(m_imgsz->value()));
    return false;
  }
  const QString out = nextOutDir();
  studio::PredictOptions options;
  options.conf = kFloor;
  options.iou = m_iou->value();
  options.imgsz = m_imgsz->value();
  QString error;
  if (!m_job->start(weights, source, out, options, &error)) {
    m_status->setText(error);
    return false;
  }
  m_images->clear();
  m_view->clear();
  m_shownPath.clear();
  m_run->setEnabled(false);
  m_cancel->setEnabled(true);
  m_save->setEnabled(false);
  m_outLabel->setText(QDir::toNativeSeparators(out));
  m_status->setText(tr("Predicting… (results in %1)").arg(QDir::toNativeSeparators(out)));
  return true;
}

void PredictDialog::finished() {
  using O = studio::PredictJob::Outcome;
  m_run->setEnabled(true);
  m_cancel->setEnabled(false);
  switch (m_job->outcome()) {
    case O::Completed: {
      QStringList notes;
      // Boxes are labelled with the checkpoint's classes; say so when the project's differ.
      const QStringList names = m_job->names().isEmpty() ? m_projectNames : m_job->names();
      if (!m_job->names().isEmpty() && !m_projectNames.isEmpty() &&
          m_job->names() != m_projectNames) {
        notes << tr("This checkpoint was trained on other classes than the project's dataset "
                    "(checkpoint: %1 — %2; dataset: %3 — %4); boxes carry the checkpoint's names.")
                     .arg(m_job->names().size())
                     .arg(QLocale().createSeparatedList(m_job->names().mid(0, 8)))
                     .arg(m_projectNames.size())
                     .arg(QLocale().createSeparatedList(m_projectNames.mid(0, 8)));
      }
      int maxCls = -1;
      int n = 0;
      for (const auto& dets : m_job->detections()) {
        n += dets.size();
        for (const auto& d : dets) maxCls = std::max(maxCls, d.cls);
      }
      QStringList shown = names;
      for (int c = int(shown.size()); c <= maxCls; ++c) shown << tr("class %1").arg(c);
      setClassNames(shown);
      if (m_job->images().isEmpty()) notes << tr("No images were found in the source.");
      if (!m_job->errorText().isEmpty()) notes << m_job->errorText();
      notes.prepend(tr("%1 detections (confidence ≥ %2) in %3 images; stave-train wrote %4")
                        .arg(n)
                        .arg(kFloor)
                        .arg(m_job->images().size())
                        .arg(QDir::toNativeSeparators(m_job->outDir())));
      m_status->setText(notes.join(QLatin1Char('\n')));
      const bool folder = QFileInfo(m_job->source()).isDir();
      for (const QString& image : m_job->images()) {
        auto* item = new QListWidgetItem(
            folder ? QDir(m_job->source()).relativeFilePath(image) : QFileInfo(image).fileName(),
            m_images);
        item->setData(Qt::UserRole, image);
        item->setToolTip(QDir::toNativeSeparators(image));
      }
      m_save->setEnabled(!m_job->images().isEmpty());
      if (m_images->count() > 0) m_images->setCurrentRow(0);
      break;
    }
    case O::Stopped:
      m_status->setText(tr("Cancelled."));
      break;
    default:
      m_status->setText(tr("Prediction failed: %1").arg(m_job->errorText()));
      break;
  }
  m_outLabel->setText(QDir::toNativeSeparators(nextOutDir()));
}

QVector<studio::Detection> PredictDialog::visible(const QString& image) const {
  QVector<studio::Detection> out;
  const double threshold = m_conf->value() / 100.0;
  for (const auto& d : m_job->detections().value(image)) {
    if (d.conf < threshold) continue;
    if (d.cls >= 0 && d.cls < m_classes->count() &&
        m_classes->item(d.cls)->checkState() != Qt::Checked)
      continue;
    out.push_back(d);
  }
  return out;
}

QImage PredictDialog::annotated(const QString& image) const {
  QImage img = readImage(image);
  if (!img.isNull()) drawBoxes(&img, visible(image), m_names, 1.0);
  return img;
}

void PredictDialog::showImage() {
  auto* item = m_images->currentItem();
  if (!item) return;
  const QString path = item->data(Qt::UserRole).toString();
  const QSize viewSize = m_view->size().expandedTo(QSize(480, 360));
  if (path != m_shownPath) {
    // Decoded once per image; the filters only redraw the boxes on the scaled copy.
    m_shownFull = readImage(path);
    m_shownPath = path;
    m_shownViewSize = QSize();
    if (m_shownFull.isNull()) {
      m_shownScaled = QImage();
      m_view->setText(tr("Cannot read %1").arg(QDir::toNativeSeparators(path)));
      return;
    }
  }
  if (m_shownFull.isNull()) return;
  if (viewSize != m_shownViewSize) {
    m_shownViewSize = viewSize;
    m_shownScaled = m_shownFull.scaled(viewSize, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    m_shownScale = double(m_shownScaled.width()) / m_shownFull.width();
  }
  if (m_shownScaled.isNull()) return;
  QImage shown = m_shownScaled;
  drawBoxes(&shown, visible(path), m_names, m_shownScale);
  m_view->setPixmap(QPixmap::fromImage(shown));
}

int PredictDialog::saveAnnotated(const QString& folder, QString* error) {
  const SaveResult r = saveItems(saveItemsFor(*this, folder), m_names);
  if (error) *error = r.error;
  return r.written;
}

void PredictDialog::resizeEvent(QResizeEvent* event) {
  QDialog::resizeEvent(event);
  showImage();
}

}  // namespace stave::widgets
