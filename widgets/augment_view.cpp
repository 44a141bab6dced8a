#include "widgets/augment_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "core/config/project.h"
#include "core/studio/engine_text.h"
#include "core/studio/background_job.h"
#include "core/studio/project/project_document.h"
#include "widgets/box_image_view.h"

namespace stave::widgets {

BatchGrid::BatchGrid(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void BatchGrid::setBatch(const studio::AugmentPreview& preview, const QStringList& names) {
  m_images.clear();
  m_boxes.clear();
  for (const auto& im : preview.images) {
    m_images << rgbImage(im.rgb, im.width, im.height);
    m_boxes << im.boxes;
  }
  m_names = names;
  update();
}

void BatchGrid::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().color(QPalette::Base));
  const int n = m_images.size();
  if (n == 0) return;
  // The most columns that still leave square cells as large as possible.
  int bestCols = 1;
  double bestSide = 0;
  for (int cols = 1; cols <= n; ++cols) {
    const int rows = (n + cols - 1) / cols;
    const double side = std::min(double(width()) / cols, double(height()) / rows);
    if (side > bestSide) {
      bestSide = side;
      bestCols = cols;
    }
  }
  const double side = bestSide;
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  QFont small = painter.font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  painter.setFont(small);
  for (int i = 0; i < n; ++i) {
    const QRectF cell((i % bestCols) * side, (i / bestCols) * side, side, side);
    const QRectF area = cell.adjusted(2, 2, -2, -2);
    const QSizeF shown = QSizeF(m_images[i].size()).scaled(area.size(), Qt::KeepAspectRatio);
    const QRectF target(area.left() + (area.width() - shown.width()) / 2,
                        area.top() + (area.height() - shown.height()) / 2, shown.width(),
                        shown.height());
    painter.drawImage(target, m_images[i]);
    QVector<DrawnBox> boxes;
    for (const auto& b : m_boxes[i]) boxes.push_back({b.rect, b.cls});
    paintBoxes(painter, target, boxes, m_names, {}, side >= 180);
  }
}

AugmentView::AugmentView(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_job(new studio::BackgroundJob(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  m_button = new QPushButton(tr("Show augmentation"), this);
  m_button->setObjectName(QStringLiteral("augmentButton"));
  m_button->setToolTip(
      tr("Render one training batch with the active config's augmentation, as the trainer's "
         "loader does"));
  top->addWidget(m_button);
  m_info = new QLabel(this);
  m_info->setObjectName(QStringLiteral("augmentInfo"));
  m_info->setWordWrap(true);
  m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top->addWidget(m_info, 1);
  layout->addLayout(top);
  m_grid = new BatchGrid(this);
  layout->addWidget(m_grid, 1);
  m_info->setText(
      tr("See what the network is trained on: a batch from the real data loader "
         "with mosaic, HSV, flips, scale and rotation as the active config sets them."));
  connect(m_button, &QPushButton::clicked, this, &AugmentView::showBatch);
  setTrain(nullptr, {});
}

AugmentView::~AugmentView() = default;

bool AugmentView::busy() const {
  return m_job->busy();
}

void AugmentView::setTrain(std::shared_ptr<const data::SplitIndex> train,
                           const QStringList& names) {
  m_train = std::move(train);
  m_names = names;
  m_button->setEnabled(m_train && !m_train->images.empty() && !m_job->busy());
  m_button->setText(tr("Show augmentation"));
  m_preview = {};
  m_grid->setBatch(m_preview, m_names);
}

void AugmentView::showBatch() {
  if (m_job->busy()) return;
  if (!m_train || m_train->images.empty()) {
    m_info->setText(tr("The train split has no usable images: nothing to augment."));
    return;
  }
  if (!m_doc->isOpen()) return;
  auto cfg = config::resolveProjectConfig(m_doc->project(), "", {});
  if (!cfg) {
    m_info->setText(
        tr("The active config cannot be used: %1").arg(studio::errorsText(cfg.errors())));
    return;
  }
  const config::RunConfig c = cfg.value();
  const int draw = m_draw++;
  const auto train = m_train;
  m_button->setEnabled(false);
  m_info->setText(tr("Building a batch…"));
  m_job->run<studio::AugmentPreview>(
      [train, c, draw] { return studio::buildAugmentPreview(*train, c, draw); },
      [this, c](studio::AugmentPreview p) {
        m_preview = std::move(p);
        m_button->setEnabled(true);
        m_button->setText(tr("Another batch"));
        m_grid->setBatch(m_preview, m_names);
        if (!m_preview.error.isEmpty()) {
          m_info->setText(tr("No batch: %1").arg(m_preview.error));
        } else {
          m_info->setText(
              tr("Config '%1': imgsz %2, mosaic %3, mixup %4, HSV %5/%6/%7, fliplr %8, flipud %9, "
                 "scale %10, degrees %11, translate %12 — epoch %13, batch %14: %15 images, "
                 "%16 boxes")
                  .arg(m_doc->activeConfig())
                  .arg(c.getInt("imgsz"))
                  .arg(c.getFloat("mosaic"))
                  .arg(c.getFloat("mixup"))
                  .arg(c.getFloat("hsv_h"))
                  .arg(c.getFloat("hsv_s"))
                  .arg(c.getFloat("hsv_v"))
                  .arg(c.getFloat("fliplr"))
                  .arg(c.getFloat("flipud"))
                  .arg(c.getFloat("scale"))
                  .arg(c.getFloat("degrees"))
                  .arg(c.getFloat("translate"))
                  .arg(m_preview.epoch)
                  .arg(m_preview.batch)
                  .arg(m_preview.images.size())
                  .arg(m_preview.targets));
        }
        emit batchShown();
      },
      [this](const QString& error) {
        m_button->setEnabled(true);
        m_info->setText(tr("No batch: %1").arg(error));
        emit batchShown();
      });
}

}  // namespace stave::widgets
