#include "widgets/label_issues_view.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "core/data/image_header.h"
#include "core/data/label_edits.h"
#include "core/studio/background_job.h"
#include "core/studio/models/thumbnail_loader.h"
#include "widgets/box_image_view.h"
#include "widgets/label_editor.h"

namespace stave::widgets {

namespace {
// The Image column: the image's thumbnail, then its file name. The thumbnail is asked of the
// loader only when the cell is painted, so a list of a million issues decodes what is on screen;
// until it is decoded the cell shows a grey square.
class ThumbnailDelegate : public QStyledItemDelegate {
 public:
  ThumbnailDelegate(studio::ThumbnailLoader* loader, QObject* parent)
      : QStyledItemDelegate(parent), m_loader(loader) {}
  void paint(QPainter* p, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override {
    const int side = LabelIssuesView::kThumbnailSide;
    QStyleOptionViewItem rest = option;
    rest.rect.setLeft(option.rect.left() + side + 8);
    // The row's selection behind the thumbnail too; the text right of it.
    QStyleOptionViewItem whole = option;
    initStyleOption(&whole, index);
    whole.text.clear();
    const QWidget* w = option.widget;
    (w ? w->style() : QApplication::style())
        ->drawPrimitive(QStyle::PE_PanelItemViewItem, &whole, p, w);
    QStyledItemDelegate::paint(p, rest, index);
    const QRect cell(option.rect.left() + 4, option.rect.top() + (option.rect.height() - side) / 2,
                     side, side);
    const QString path = index.data(studio::LabelIssuesModel::ImagePathRole).toString();
    const auto thumb = path.isEmpty() ? nullptr : m_loader->get(path);
    if (!thumb) {
      p->fillRect(cell, QColor(128, 128, 128, 60));
      return;
    }
    if (!thumb->ok()) {
      p->setPen(QColor(176, 0, 32));
      p->drawText(cell, Qt::AlignCenter, QStringLiteral("✕"));
      return;
    }
    const QImage img = rgbImage(thumb->rgb, thumb->width, thumb->height);
    const QSize fit = img.size().scaled(cell.size(), Qt::KeepAspectRatio);
    const QRect at(cell.left() + (side - fit.width()) / 2, cell.top() + (side - fit.height()) / 2,
                   fit.width(), fit.height());
    p->drawImage(at, img);
  }
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    const int side = LabelIssuesView::kThumbnailSide;
    return {s.width() + side + 8, std::max(s.height(), side + 4)};
  }

 private:
  studio::ThumbnailLoader* m_loader;
};

// What the preview's thread reads: the picture and the label boxes of the file now.
struct IssuePicture {
  QImage image;
  QSize size;  // of the full image
  std::vector<data::Box> boxes;
  QString error;
};
}  // namespace

LabelIssuesView::LabelIssuesView(QWidget* parent)
    : QWidget(parent),
      m_model(new studio::LabelIssuesModel(this)),
      // Small thumbnails, bounded in bytes (about 1000 of them) and in queued requests: the
      // list may name a million images, only those on screen are asked for.
      m_thumbs(new studio::ThumbnailLoader({kThumbnailSide, 2, 32ll << 20, 256}, this)),
      m_imageJob(new studio::BackgroundJob(this)) {
  setObjectName(QStringLiteral("labelIssuesView"));
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  m_open = new QPushButton(tr("Open issues CSV…"), this);
  m_open->setToolTip(tr("The CSV `stave-train label-issues` writes (see docs/labels.md)"));
  top->addWidget(m_open);
  m_summary = new QLabel(tr("No issues list open."), this);
  m_summary->setWordWrap(true);
  top->addWidget(m_summary, 1);
  layout->addLayout(top);

  auto* keys = new QLabel(tr("Enter: the usual fix (accept the prediction, take the predicted "
                             "class or box, delete the box) · Delete: delete the box · C: take the "
                             "predicted class · E: edit · N: not an issue"),
                          this);
  keys->setWordWrap(true);
  layout->addWidget(keys);

  auto* split = new QSplitter(this);
  m_table = new QTableView(split);
  m_table->setObjectName(QStringLiteral("labelIssuesTable"));
  m_table->setModel(m_model);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_table->verticalHeader()->setDefaultSectionSize(kThumbnailSide + 6);
  m_table->setItemDelegateForColumn(studio::LabelIssuesModel::ImageColumn,
                                    new ThumbnailDelegate(m_thumbs, m_table));
  m_table->horizontalHeader()->setSectionResizeMode(studio::LabelIssuesModel::ImageColumn,
                                                    QHeaderView::Stretch);
  m_table->installEventFilter(this);
  // Thumbnails arriving in a burst repaint the list once.
  auto* repaint = new QTimer(this);
  repaint->setSingleShot(true);
  repaint->setInterval(50);
  connect(repaint, &QTimer::timeout, m_table->viewport(), qOverload<>(&QWidget::update));
  connect(m_thumbs, &studio::ThumbnailLoader::ready, repaint, qOverload<>(&QTimer::start));
  m_preview = new BoxImageView(split);
  m_preview->setMessage(tr("Select an issue to see its image."));
  split->addWidget(m_table);
  split->addWidget(m_preview);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("labelIssuesMessage"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_message);

  connect(m_open, &QPushButton::clicked, this, [this] {
    const QString csv =
        QFileDialog::getOpenFileName(this, tr("Open issues CSV"), m_root, tr("CSV files (*.csv)"));
    if (!csv.isEmpty()) load(csv, m_root, m_names);
  });
  connect(m_model, &studio::LabelIssuesModel::loaded, this, [this] {
    m_thumbs->clearPending();  // what the previous list asked for
    if (!m_model->error().isEmpty()) {
      m_summary->setText(tr("Cannot read the issues: %1").arg(m_model->error()));
      return;
    }
    QString text = tr("%n issue(s) in %1", nullptr, m_model->rowCount())
                       .arg(QDir::toNativeSeparators(m_model->csvPath()));
    if (m_model->dismissedCount() > 0)
      text += tr(" · %n marked not an issue before (hidden)", nullptr, m_model->dismissedCount());
    m_summary->setText(text);
    m_message->setText(m_model->problems().join(QLatin1Char('\n')));
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(studio::LabelIssuesModel::ImageColumn,
                                                      QHeaderView::Stretch);
    if (m_model->rowCount() > 0) m_table->selectRow(0);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &LabelIssuesView::showSelected);
  connect(m_table, &QTableView::doubleClicked, this, [this] { editSelected(); });
  connect(m_model, &studio::LabelIssuesModel::fixed, this, [this](int row, const QString& edit) {
    m_message->setText(edit.isEmpty() ? tr("Marked not an issue.")
                                      : tr("Fixed (edit %1).").arg(edit));
    selectNextOpen(row);
  });
  connect(m_model, &studio::LabelIssuesModel::failed, this,
          [this](int, const QString& why) { m_message->setText(tr("Not fixed: %1").arg(why)); });
}

void LabelIssuesView::setDataset(const QString& root, const QStringList& names) {
  m_root = root;
  m_names = names;
}

void LabelIssuesView::load(const QString& csv, const QString& root, const QStringList& names) {
  setDataset(root, names);
  m_summary->setText(tr("Reading %1…").arg(QDir::toNativeSeparators(csv)));
  m_message->clear();
  m_model->load(csv, root, names);
}

int LabelIssuesView::selectedRow() const {
  const QModelIndex i = m_table->currentIndex();
  return i.isValid() ? i.row() : -1;
}

void LabelIssuesView::showSelected() {
  const int row = selectedRow();
  if (row < 0) return;
  const data::IssueRow issue = m_model->issue(row);
  const QString image = m_model->imagePath(row), label = m_model->labelPath(row);
  const QStringList names = m_names;
  m_preview->setMessage(tr("Reading %1…").arg(QFileInfo(image).fileName()));
  m_preview->setImage({});
  m_imageJob->run<IssuePicture>(
      [image, label] {
        IssuePicture p;
        const auto t = studio::ThumbnailLoader::decode(image, 1200);
        if (!t.ok()) {
          p.error = t.error;
          return p;
        }
        p.image = rgbImage(t.rgb, t.width, t.height);
        const auto header = data::readImageHeader(image.toStdString());
        if (header.ok) p.size = QSize(header.displayWidth(), header.displayHeight());
        if (auto f = data::readLabelFile(label.toStdString()))
          for (const auto& r : data::parseLabelRows(f->text))
            if (r.isBox) p.boxes.push_back(r.box);
        return p;
      },
      [this, issue, names, image](IssuePicture p) {
        if (!p.error.isEmpty()) {
          m_preview->setMessage(tr("Cannot read %1: %2").arg(image, p.error));
          return;
        }
        QVector<DrawnBox> boxes;
        for (const auto& b : p.boxes) {
          DrawnBox d(QRectF(b.cx - b.w / 2, b.cy - b.h / 2, b.w, b.h), b.cls);
          d.dashed = true;
          boxes.push_back(d);
        }
        // The issue's box is in pixels of the full image.
        if (p.size.width() > 0 && p.size.height() > 0) {
          const double w = p.size.width(), h = p.size.height();
          DrawnBox d(QRectF(issue.x1 / w, issue.y1 / h, (issue.x2 - issue.x1) / w,
                            (issue.y2 - issue.y1) / h),
                     std::max(issue.labelClass, issue.predictedClass));
          d.highlight = true;
          d.tag = studio::issueKindText(issue.kind);
          boxes.push_back(d);
        }
        m_preview->setClassNames(names);
        m_preview->setBoxes(boxes);
        m_preview->setImage(p.image);
        m_preview->setMessage({});
        emit previewShown();
      });
}

void LabelIssuesView::selectNextOpen(int after) {
  for (int r = after + 1; r < m_model->rowCount(); ++r)
    if (m_model->state(r) == studio::LabelIssuesModel::State::Open) {
      m_table->selectRow(r);
      return;
    }
}

void LabelIssuesView::fixSelected() {
  const int row = selectedRow();
  if (row < 0) return;
  data::IssueFix fix{};
  const data::IssueRow& issue = m_model->issue(row);
  if (issue.kind == data::IssueKind::BadlyLocated && issue.hasPredictedBox) {
    fixSelected(data::IssueFix::TakePredictedBox);  // the box label-issues found for it
    return;
  }
  if (!data::defaultFix(issue.kind, fix)) {
    editSelected();  // a badly located box with no known prediction is redrawn by hand
    return;
  }
  fixSelected(fix);
}

void LabelIssuesView::fixSelected(data::IssueFix fix) {
  const int row = selectedRow();
  if (row < 0) return;
  m_model->applyFix(row, fix);
}

void LabelIssuesView::notAnIssue() {
  const int row = selectedRow();
  if (row >= 0) m_model->markNotAnIssue(row);
}

LabelEditor* LabelIssuesView::editSelected() {
  const int row = selectedRow();
  if (row < 0) return nullptr;
  // Every image of the list once, in rank order, with its issues (and, for an overlooked or
  // swapped one, the prediction to accept).
  QVector<studio::EditorImage> images;
  QHash<QString, int> at;
  int current = 0;
  for (int r = 0; r < m_model->rowCount(); ++r) {
    const QString path = m_model->imagePath(r);
    auto it = at.find(path);
    if (it == at.end()) {
      studio::EditorImage im;
      im.image = path;
      im.pixels = true;
      images.push_back(im);
      it = at.insert(path, int(images.size()) - 1);
    }
    if (r == row) current = *it;
    const data::IssueRow& is = m_model->issue(r);
    studio::EditorBox b;
    b.rect = QRectF(QPointF(is.x1, is.y1), QPointF(is.x2, is.y2));
    b.cls = int(is.kind);
    images[*it].issues.push_back(b);
    // A badly located issue's prediction is elsewhere: drawn where label-issues found it, or
    // not at all when the CSV came without it.
    const bool located = is.kind == data::IssueKind::BadlyLocated;
    if (is.predictedClass >= 0 && (!located || is.hasPredictedBox)) {
      studio::EditorBox p = b;
      if (located) p.rect = QRectF(QPointF(is.px1, is.py1), QPointF(is.px2, is.py2));
      p.cls = is.predictedClass;
      p.conf = is.score;
      images[*it].predictions.push_back(p);
    }
  }
  m_editor = openLabelEditor(window(), m_root, m_names, images, current);
  connect(m_editor, &QObject::destroyed, this, [this] { m_editor = nullptr; });
  return m_editor;
}

bool LabelIssuesView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_table && event->type() == QEvent::KeyPress) {
    auto* k = static_cast<QKeyEvent*>(event);
    if (k->modifiers() == Qt::NoModifier) {
      switch (k->key()) {
        case Qt::Key_Return:
        case Qt::Key_Enter:
          fixSelected();
          return true;
        case Qt::Key_Delete:
        case Qt::Key_Backspace:
          fixSelected(data::IssueFix::DeleteBox);
          return true;
        case Qt::Key_C:
          fixSelected(data::IssueFix::TakeOtherClass);
          return true;
        case Qt::Key_E:
          editSelected();
          return true;
        case Qt::Key_N:
          notAnIssue();
          return true;
        default:
          break;
      }
    }
  }
  return QWidget::eventFilter(watched, event);
}

void LabelIssuesView::keyPressEvent(QKeyEvent* event) {
  QWidget::keyPressEvent(event);
}

}  // namespace stave::widgets
