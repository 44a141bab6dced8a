#include "widgets/dataset_gallery.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "core/studio/models/gallery_model.h"
#include "core/studio/models/thumbnail_loader.h"
#include "widgets/box_image_view.h"
#include "widgets/gallery_delegate.h"

namespace stave::widgets {
namespace {
QPixmap swatch(const QColor& c) {
  QPixmap p(12, 12);
  p.fill(c);
  return p;
}
}  // namespace

DatasetGallery::DatasetGallery(QWidget* parent)
    : QWidget(parent),
      m_model(new studio::GalleryModel(this)),
      m_filter(new studio::GalleryFilterModel(this)),
      m_thumbs(new studio::ThumbnailLoader({160, 2, 96ll << 20, 512}, this)),
      m_large(new studio::ThumbnailLoader({1280, 1, 64ll << 20, 4}, this)),
      m_delegate(new GalleryDelegate(m_thumbs, this)) {
  m_filter->setSourceModel(m_model);
  auto* layout = new QVBoxLayout(this);
  buildFilterBar(layout);
  buildBrowser(layout);
  connectSignals();
  setSummary({});
}

void DatasetGallery::buildFilterBar(QVBoxLayout* layout) {
  auto* filters = new QHBoxLayout;
  m_splitBox = new QComboBox(this);
  m_splitBox->setObjectName(QStringLiteral("gallerySplit"));
  m_classBox = new QComboBox(this);
  m_classBox->setObjectName(QStringLiteral("galleryClass"));
  m_problemBox = new QComboBox(this);
  m_problemBox->setObjectName(QStringLiteral("galleryProblem"));
  filters->addWidget(new QLabel(tr("Split:"), this));
  filters->addWidget(m_splitBox);
  filters->addWidget(new QLabel(tr("Class:"), this));
  filters->addWidget(m_classBox);
  filters->addWidget(new QLabel(tr("Problems:"), this));
  filters->addWidget(m_problemBox);
  m_count = new QLabel(this);
  filters->addWidget(m_count, 1);
  m_edit = new QPushButton(tr("Edit labels…"), this);
  m_edit->setObjectName(QStringLiteral("galleryEditLabels"));
  m_edit->setToolTip(tr("Open the label editor on the images shown, from the selected one "
                        "(or double-click an image)"));
  filters->addWidget(m_edit);
  layout->addLayout(filters);
}

void DatasetGallery::buildBrowser(QVBoxLayout* layout) {
  auto* split = new QSplitter(Qt::Horizontal, this);
  m_view = new QListView(split);
  m_view->setObjectName(QStringLiteral("galleryView"));
  m_view->setViewMode(QListView::IconMode);
  m_view->setMovement(QListView::Static);
  m_view->setResizeMode(QListView::Adjust);
  m_view->setUniformItemSizes(true);  // no per-item size queries: 50 000 images lay out at once
  m_view->setLayoutMode(QListView::Batched);
  m_view->setBatchSize(2000);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->setItemDelegate(m_delegate);
  m_view->setGridSize(m_delegate->cellSize());
  m_view->setModel(m_filter);
  m_view->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
  m_view->verticalScrollBar()->setSingleStep(24);
  m_view->setMinimumWidth(m_delegate->cellSize().width() * 2 + 24);

  auto* right = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  m_preview = new BoxImageView(right);
  m_preview->setObjectName(QStringLiteral("galleryPreview"));
  m_preview->setMessage(tr("Select an image to see it large."));
  rightLayout->addWidget(m_preview, 1);
  m_info = new QLabel(right);
  m_info->setObjectName(QStringLiteral("galleryInfo"));
  m_info->setWordWrap(true);
  m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rightLayout->addWidget(m_info);
  rightLayout->addWidget(new QLabel(tr("Boxes shown for:"), right));
  m_classes = new QListWidget(right);
  m_classes->setObjectName(QStringLiteral("galleryClassToggles"));
  m_classes->setMaximumHeight(140);
  rightLayout->addWidget(m_classes);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({600, 400});  // scaled to the room there is: 3 : 2
  layout->addWidget(split, 1);
}

void DatasetGallery::connectSignals() {
  // A burst of decoded thumbnails repaints the cells once, not once per image.
  m_repaint = new QTimer(this);
  m_repaint->setSingleShot(true);
  m_repaint->setInterval(40);
  connect(m_repaint, &QTimer::timeout, m_view->viewport(), qOverload<>(&QWidget::update));
  connect(m_thumbs, &studio::ThumbnailLoader::ready, this, [this] {
    if (!m_repaint->isActive()) m_repaint->start();
  });
  connect(m_large, &studio::ThumbnailLoader::ready, this, [this](const QString& path) {
    if (m_selected >= 0 && m_model->image(m_selected).path == path) showPreview();
  });
  for (auto* box : {m_splitBox, m_classBox, m_problemBox})
    connect(box, &QComboBox::currentIndexChanged, this, &DatasetGallery::applyFilters);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            m_selected = current.isValid() ? m_filter->mapToSource(current).row() : -1;
            showPreview();
          });
  connect(m_classes, &QListWidget::itemChanged, this, &DatasetGallery::updateHidden);
  connect(m_view, &QListView::doubleClicked, this, [this](const QModelIndex& index) {
    emit editRequested(m_filter->mapToSource(index).row());
  });
  connect(m_edit, &QPushButton::clicked, this, [this] {
    const QVector<int> rows = shownRows();
    if (!rows.isEmpty()) emit editRequested(m_selected >= 0 ? m_selected : rows.front());
  });
}

QVector<int> DatasetGallery::shownRows() const {
  QVector<int> rows;
  rows.reserve(m_filter->rowCount());
  for (int r = 0; r < m_filter->rowCount(); ++r)
    rows.push_back(m_filter->mapToSource(m_filter->index(r, 0)).row());
  return rows;
}

DatasetGallery::~DatasetGallery() = default;

void DatasetGallery::setSummary(const studio::DatasetSummary& s) {
  m_thumbs->clear();
  m_large->clear();
  m_selected = -1;
  m_previewShown.clear();
  m_preview->clear();
  m_preview->setMessage(tr("Select an image to see it large."));
  m_preview->setClassNames(s.names);
  m_info->clear();
  m_delegate->setClassNames(s.names);
  for (auto* box : {m_splitBox, m_classBox, m_problemBox}) box->blockSignals(true);
  m_splitBox->clear();
  m_splitBox->addItem(tr("All splits"), QString());
  for (const auto& sp : s.splits) m_splitBox->addItem(sp.name, sp.name);
  m_classBox->clear();
  m_classBox->addItem(tr("All classes"), -1);
  for (int c = 0; c < s.names.size(); ++c)
    m_classBox->addItem(swatch(classColor(c)), QStringLiteral("%1 %2").arg(c).arg(s.names[c]), c);
  m_problemBox->clear();
  m_problemBox->addItem(tr("All images"), QString());
  m_problemBox->addItem(tr("With problems"), studio::GalleryFilterModel::kAnyProblem);
  m_problemBox->addItem(tr("Without problems"), studio::GalleryFilterModel::kNoProblem);
  for (const auto& k : s.problemKinds) m_problemBox->addItem(k, k);
  for (auto* box : {m_splitBox, m_classBox, m_problemBox}) box->blockSignals(false);
  m_classes->blockSignals(true);
  m_classes->clear();
  m_hidden.clear();
  for (int c = 0; c < s.names.size(); ++c) {
    const qint64 n = c < s.instancesPerClass.size() ? s.instancesPerClass[c] : 0;
    auto* item = new QListWidgetItem(swatch(classColor(c)),
                                     tr("%1 (%2 boxes)").arg(s.names[c]).arg(n), m_classes);
    item->setData(Qt::UserRole, c);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
  }
  m_classes->blockSignals(false);
  m_delegate->setHiddenClasses(m_hidden);
  m_preview->setHiddenClasses(m_hidden);
  m_filter->setSplitFilter(QString());
  m_filter->setClassFilter(-1);
  m_filter->setProblemFilter(QString());
  m_model->setSummary(s);
  updateCount();
}

void DatasetGallery::applyFilters() {
  // What was queued is for cells that are about to disappear.
  m_thumbs->clearPending();
  m_filter->setSplitFilter(m_splitBox->currentData().toString());
  m_filter->setClassFilter(m_classBox->currentData().isValid() ? m_classBox->currentData().toInt()
                                                               : -1);
  m_filter->setProblemFilter(m_problemBox->currentData().toString());
  updateCount();
}

void DatasetGallery::updateCount() {
  m_count->setText(tr("%1 of %2 images").arg(m_filter->rowCount()).arg(m_model->rowCount()));
}

void DatasetGallery::updateHidden() {
  m_hidden.clear();
  for (int i = 0; i < m_classes->count(); ++i)
    if (m_classes->item(i)->checkState() != Qt::Checked)
      m_hidden.insert(m_classes->item(i)->data(Qt::UserRole).toInt());
  m_delegate->setHiddenClasses(m_hidden);
  m_preview->setHiddenClasses(m_hidden);
  m_view->viewport()->update();
}

void DatasetGallery::select(int sourceRow) {
  const QModelIndex proxy = m_filter->mapFromSource(m_model->index(sourceRow));
  if (!proxy.isValid()) {
    // Filtered out: show every image again so the selection is visible.
    m_splitBox->setCurrentIndex(0);
    m_classBox->setCurrentIndex(0);
    m_problemBox->setCurrentIndex(0);
  }
  const QModelIndex at = m_filter->mapFromSource(m_model->index(sourceRow));
  m_view->setCurrentIndex(at);
  m_view->scrollTo(at);
}

void DatasetGallery::showPreview() {
  m_previewShown.clear();
  if (m_selected < 0 || m_selected >= m_model->rowCount()) {
    m_preview->clear();
    m_preview->setMessage(tr("Select an image to see it large."));
    m_info->clear();
    return;
  }
  const studio::GalleryImage& im = m_model->image(m_selected);
  const QString split =
      im.split < m_model->splitNames().size() ? m_model->splitNames()[im.split] : QString();
  QString info = QDir::toNativeSeparators(im.path);
  if (im.usable)
    info += QLatin1Char('\n') + tr("%1 split, %2 × %3 pixels, boxes: %4")
                                    .arg(split)
                                    .arg(im.width)
                                    .arg(im.height)
                                    .arg(im.boxes.size());
  else
    info += QLatin1Char('\n') + tr("%1 split, left out of training").arg(split);
  if (!im.problemKinds.isEmpty())
    info += QLatin1Char('\n') +
            tr("Problems: %1 (see the Problems tab)").arg(im.problemKinds.join(", "));
  m_info->setText(info);
  QVector<DrawnBox> boxes;
  for (const auto& b : im.boxes)
    boxes.push_back({QRectF(b.cx - b.w / 2, b.cy - b.h / 2, b.w, b.h), b.cls});
  const auto thumb = m_large->get(im.path);
  m_preview->setBoxes(boxes);
  if (!thumb) {
    m_preview->setImage(QImage());
    m_preview->setMessage(tr("Loading…"));
    return;
  }
  if (!thumb->ok()) {
    m_preview->setImage(QImage());
    m_preview->setMessage(
        tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(im.path), thumb->error));
    return;
  }
  m_preview->setImage(thumbnailImage(*thumb));
  m_previewShown = im.path;
}

int DatasetGallery::visibleCells() const {
  int n = 0;
  const QRect area = m_view->viewport()->rect();
  for (int r = 0; r < m_filter->rowCount(); ++r) {
    const QRect cell = m_view->visualRect(m_filter->index(r, 0));
    if (cell.intersects(area))
      ++n;
    else if (n > 0 && cell.top() > area.bottom())
      break;  // rows are laid out top to bottom
  }
  return n;
}

int DatasetGallery::missingVisibleThumbnails() const {
  int missing = 0, seen = 0;
  const QRect area = m_view->viewport()->rect();
  for (int r = 0; r < m_filter->rowCount(); ++r) {
    const QModelIndex index = m_filter->index(r, 0);
    const QRect cell = m_view->visualRect(index);
    if (!cell.intersects(area)) {
      if (seen > 0 && cell.top() > area.bottom()) break;
      continue;
    }
    ++seen;
    if (!m_thumbs->cached(index.data(studio::GalleryModel::PathRole).toString())) ++missing;
  }
  return missing;
}

}  // namespace stave::widgets
