#include "widgets/label_editor.h"

#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include "core/data/label_issues.h"
#include "core/studio/run/draft_labels.h"
#include "widgets/box_image_view.h"
#include "widgets/label_canvas.h"

namespace stave::widgets {

namespace {

// One edit of the boxes: undo puts the boxes before it back.
class BoxesCommand : public QUndoCommand {
 public:
  BoxesCommand(studio::LabelEditorModel* model, QVector<studio::EditorBox> before,
               QVector<studio::EditorBox> after, const QString& text)
      : QUndoCommand(text),
        m_model(model),
        m_before(std::move(before)),
        m_after(std::move(after)) {}
  void redo() override { m_model->setBoxes(m_after); }
  void undo() override { m_model->setBoxes(m_before); }

 private:
  studio::LabelEditorModel* m_model;
  QVector<studio::EditorBox> m_before, m_after;
};

double rectIou(const QRectF& a, const QRectF& b) {
  const QRectF i = a.intersected(b);
  const double inter = i.isValid() ? i.width() * i.height() : 0;
  const double uni = a.width() * a.height() + b.width() * b.height() - inter;
  return uni > 0 ? inter / uni : 0;
}

QPushButton* flatButton(const QString& text, QWidget* parent) {
  auto* b = new QPushButton(text, parent);
  b->setFocusPolicy(Qt::NoFocus);  // keys belong to the canvas
  return b;
}

}  // namespace

LabelEditor::LabelEditor(QWidget* parent)
    : QWidget(parent),
      m_model(new studio::LabelEditorModel(this)),
      m_canvas(new LabelCanvas(this)),
      m_undo(new QUndoStack(this)) {
  setObjectName(QStringLiteral("labelEditor"));
  setWindowTitle(tr("Label editor"));
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto* prev = flatButton(tr("◀ Previous"), this);
  auto* next = flatButton(tr("Next ▶"), this);
  auto* issue = flatButton(tr("Next issue (I)"), this);
  auto* accept = flatButton(tr("Accept prediction (A)"), this);
  auto* undo = flatButton(tr("Undo"), this);
  auto* redo = flatButton(tr("Redo"), this);
  m_acceptAll = flatButton(tr("Accept all drafts (Shift+A)"), this);
  m_acceptAll->setObjectName(QStringLiteral("labelEditorAcceptAll"));
  m_acceptAll->hide();
  auto* save = flatButton(tr("Save"), this);
  for (auto* b : {prev, next, issue, accept, m_acceptAll, undo, redo, save}) bar->addWidget(b);
  bar->addStretch(1);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("labelEditorStatus"));
  bar->addWidget(m_status);
  layout->addLayout(bar);

  auto* body = new QHBoxLayout;
  body->addWidget(m_canvas, 1);
  auto* side = new QVBoxLayout;
  auto* classTitle = new QLabel(tr("Class (keys 1–9, 0)"), this);
  side->addWidget(classTitle);
  m_classes = new QListWidget(this);
  m_classes->setObjectName(QStringLiteral("labelEditorClasses"));
  m_classes->setFocusPolicy(Qt::NoFocus);
  m_classes->setMaximumWidth(220);
  side->addWidget(m_classes, 1);
  auto* help = new QLabel(
      tr("Drag on empty space to draw a box; drag a box to move it, its edges to resize. "
         "Delete removes it. Dashed: the model's predictions — click one and press A to "
         "accept it. Right or middle drag pans, the wheel zooms, Ctrl+0 fits. "
         "Left/Right: previous/next image (edits are saved first)."),
      this);
  help->setWordWrap(true);
  help->setMaximumWidth(220);
  side->addWidget(help);
  m_draftHelp = new QLabel(tr("Hatched: the model's draft labels for this new image. A accepts "
                              "the selected one (or the strongest), Shift+A all of them; each "
                              "accept writes the label file, nothing is written before."),
                           this);
  m_draftHelp->setObjectName(QStringLiteral("labelEditorDraftHelp"));
  m_draftHelp->setWordWrap(true);
  m_draftHelp->setMaximumWidth(220);
  m_draftHelp->hide();
  side->addWidget(m_draftHelp);
  body->addLayout(side);
  layout->addLayout(body, 1);

  auto* messageRow = new QHBoxLayout;
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("labelEditorMessage"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  messageRow->addWidget(m_message, 1);
  m_reload = flatButton(tr("Reload from disk"), this);
  m_discard = flatButton(tr("Discard edits"), this);
  m_saveElsewhere = flatButton(tr("Save elsewhere…"), this);
  m_saveElsewhere->setObjectName(QStringLiteral("labelEditorSaveElsewhere"));
  m_saveElsewhere->setToolTip(
      tr("Writes the edited label files, and only those, to a folder you choose, with the "
         "dataset's layout (labels/train/…)"));
  m_reload->hide();
  m_discard->hide();
  m_saveElsewhere->hide();
  messageRow->addWidget(m_reload);
  messageRow->addWidget(m_saveElsewhere);
  messageRow->addWidget(m_discard);
  layout->addLayout(messageRow);

  connect(prev, &QPushButton::clicked, this, &LabelEditor::previous);
  connect(next, &QPushButton::clicked, this, &LabelEditor::next);
  connect(issue, &QPushButton::clicked, this, &LabelEditor::nextIssue);
  connect(accept, &QPushButton::clicked, this, [this] { acceptPrediction(); });
  connect(undo, &QPushButton::clicked, m_undo, &QUndoStack::undo);
  connect(redo, &QPushButton::clicked, m_undo, &QUndoStack::redo);
  connect(save, &QPushButton::clicked, m_model, &studio::LabelEditorModel::save);
  connect(m_undo, &QUndoStack::canUndoChanged, undo, &QWidget::setEnabled);
  connect(m_undo, &QUndoStack::canRedoChanged, redo, &QWidget::setEnabled);
  undo->setEnabled(false);
  redo->setEnabled(false);
  connect(m_acceptAll, &QPushButton::clicked, this, [this] { acceptAllDrafts(); });
  connect(m_reload, &QPushButton::clicked, this, [this] {
    m_undo->clear();
    m_model->reload();
  });
  connect(m_discard, &QPushButton::clicked, this, [this] {
    m_undo->clear();
    m_model->discardKept();
  });
  connect(m_saveElsewhere, &QPushButton::clicked, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Save the edited label files in"), m_model->savedElsewhereTo());
    if (!folder.isEmpty()) saveElsewhere(folder);
  });
  connect(m_model, &studio::LabelEditorModel::predictionsChanged, this, &LabelEditor::showDrafts);
  connect(m_model, &studio::LabelEditorModel::savedElsewhere, this,
          [this](const QString& folder, const QStringList& files) {
            m_message->setText(
                tr("%n edited label file(s) written under %1 (the dataset is unchanged).", nullptr,
                   int(files.size()))
                    .arg(QDir::toNativeSeparators(folder)));
          });
  connect(m_classes, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0) setClass(row);
  });
  connect(m_canvas, &LabelCanvas::boxesEdited, this,
          [this](const QVector<studio::EditorBox>&, const QVector<studio::EditorBox>& after,
                 const QString& what) { edit(after, what); });
  connect(m_canvas, &LabelCanvas::selectionChanged, this, [this](int box) {
    if (box < 0 || box >= m_model->boxes().size()) return;
    const QSignalBlocker block(m_classes);
    m_classes->setCurrentRow(m_model->boxes()[box].cls);
  });
  connect(m_model, &studio::LabelEditorModel::opened, this, &LabelEditor::showOpened);
  connect(m_model, &studio::LabelEditorModel::boxesChanged, this, [this] {
    m_canvas->setBoxes(m_model->boxes());
    updateStatus();
  });
  connect(m_model, &studio::LabelEditorModel::saved, this, [this](const QString& edit) {
    m_reload->hide();
    m_discard->hide();
    m_message->setText(edit.isEmpty() ? QString() : tr("Saved (edit %1).").arg(edit));
    updateStatus();
    if (m_closeWhenSaved) close();
  });
  connect(m_model, &studio::LabelEditorModel::failed, this, &LabelEditor::showFailure);
  m_canvas->setMessage(tr("Nothing to show yet."));
}

LabelEditor::~LabelEditor() = default;

void LabelEditor::setImages(const QString& root, const QStringList& names,
                            const QVector<studio::EditorImage>& images, int current) {
  m_model->setDataset(root, names);
  m_classes->clear();
  for (int i = 0; i < names.size(); ++i) {
    auto* item = new QListWidgetItem(
        i < 10 ? QStringLiteral("%1  %2").arg((i + 1) % 10).arg(names[i]) : names[i], m_classes);
    item->setForeground(classColor(i));
  }
  m_canvas->setClassNames(names);
  m_canvas->setMessage(tr("Loading…"));
  m_model->setImages(images, current);
}

void LabelEditor::showOpened() {
  m_undo->clear();
  const auto& pic = m_model->picture();
  QPixmap pixmap;
  if (pic.ok()) pixmap = QPixmap::fromImage(rgbImage(pic.rgb, pic.width, pic.height));
  m_canvas->setPicture(pixmap);
  if (!pic.ok()) m_canvas->setMessage(tr("Cannot read the image: %1").arg(pic.error));
  m_canvas->setBoxes(m_model->boxes());
  m_canvas->select(-1);
  m_canvas->setPredictions(m_model->predictions());
  m_canvas->setDrafts(m_model->showingDrafts());
  m_acceptAll->setVisible(m_model->showingDrafts());
  m_draftHelp->setVisible(m_model->showingDrafts());
  m_canvas->setIssues(m_model->issues());
  m_message->clear();
  m_reload->hide();
  // Edits kept in memory stay reachable from every image until saved elsewhere or discarded.
  const bool kept = m_model->readOnly() && m_model->keptCount() > 0;
  m_discard->setVisible(kept);
  m_saveElsewhere->setVisible(kept);
  if (kept)
    m_message->setText(tr("The dataset cannot be written: %n edited label file(s) kept here.",
                          nullptr, m_model->keptCount()));
  updateStatus();
  m_canvas->setFocus();
  emit imageShown(m_model->current());
}

void LabelEditor::updateStatus() {
  const auto* im = m_model->currentImage();
  if (!im) {
    m_status->clear();
    return;
  }
  QString text = tr("%1 of %2 · %3 · %n box(es)", nullptr, int(m_model->boxes().size()))
                     .arg(m_model->current() + 1)
                     .arg(m_model->count())
                     .arg(QFileInfo(im->image).fileName());
  if (m_model->showingDrafts()) {
    int open = 0;
    for (const auto& d : m_model->predictions()) open += m_canvas->isAccepted(d) ? 0 : 1;
    text += tr(" · %n draft(s) not accepted", nullptr, open);
  }
  if (m_model->dirty()) text += tr(" · unsaved");
  m_status->setText(text);
  setWindowTitle(tr("Label editor — %1").arg(QFileInfo(im->image).fileName()));
}

void LabelEditor::showFailure(studio::LabelEditorModel::Failure failure, const QString& message) {
  m_closeWhenSaved = false;
  using F = studio::LabelEditorModel::Failure;
  QString text;
  if (failure == F::Conflict)
    text = tr("Not saved: the label file was changed by another program since it was opened. "
              "Reload it (your edits here are dropped) or keep editing.\n%1")
               .arg(message);
  else if (failure == F::Write)
    text = tr("Not saved: the dataset cannot be written. Your edits are kept here (%n label "
              "file(s)) until you save them elsewhere or discard them.\n%1",
              nullptr, m_model->keptCount())
               .arg(message);
  else if (failure == F::Elsewhere)
    text = tr("Not saved elsewhere: %1").arg(message);
  else
    text = tr("Cannot read: %1").arg(message);
  m_message->setText(text);
  m_reload->setVisible(failure == F::Conflict);
  const bool kept = failure == F::Write || failure == F::Elsewhere ||
                    (m_model->readOnly() && m_model->keptCount() > 0);
  m_discard->setVisible(kept);
  m_saveElsewhere->setVisible(kept);
}

void LabelEditor::saveElsewhere(const QString& folder) {
  if (m_model->keptCount() == 0) {
    m_message->setText(tr("No edited label files to save."));
    return;
  }
  m_message->setText(tr("Writing %n label file(s) under %1…", nullptr, m_model->keptCount())
                         .arg(QDir::toNativeSeparators(folder)));
  m_model->saveElsewhere(folder);
}

studio::DraftPredictor* LabelEditor::draftPredictor() {
  if (!m_drafts) {
    m_drafts = new studio::DraftPredictor(this);
    connect(m_drafts, &studio::DraftPredictor::finished, this, &LabelEditor::draftsPredicted);
  }
  return m_drafts;
}

void LabelEditor::predictDrafts(const QString& weights, double conf) {
  draftPredictor();
  QStringList images;
  for (int i = 0; i < m_model->count(); ++i) images << m_model->image(i).image;
  QString why;
  if (!m_drafts->start(weights, images, conf, &why)) {
    m_message->setText(tr("Cannot predict draft labels: %1").arg(why));
    return;
  }
  m_message->setText(
      tr("Predicting draft labels with %1 on %n image(s)…", nullptr, int(images.size()))
          .arg(QDir::toNativeSeparators(weights)));
}

void LabelEditor::draftsPredicted() {
  using O = studio::DraftPredictor::Outcome;
  if (m_drafts->outcome() != O::Completed) {
    m_message->setText(m_drafts->outcome() == O::Stopped
                           ? tr("Draft labels cancelled.")
                           : tr("Cannot predict draft labels: %1").arg(m_drafts->errorText()));
    return;
  }
  QMap<QString, QVector<studio::EditorBox>> drafts;
  int boxes = 0, otherClass = 0;
  const int nc = int(m_model->names().size());
  for (auto it = m_drafts->detections().cbegin(); it != m_drafts->detections().cend(); ++it) {
    QVector<studio::EditorBox> list;
    for (const auto& d : it.value()) {
      if (d.cls < 0 || d.cls >= nc) {
        ++otherClass;  // a model of other classes: its class ids mean nothing here
        continue;
      }
      list.push_back({d.cls, d.box, d.conf, -1});
    }
    boxes += int(list.size());
    drafts.insert(it.key(), list);
  }
  // Every image predicted is a draft image, with or without boxes.
  for (int i = 0; i < m_model->count(); ++i)
    if (!drafts.contains(m_model->image(i).image)) drafts.insert(m_model->image(i).image, {});
  m_model->setDrafts(drafts);
  QString text = tr("Draft labels from %1: %n box(es) on %2 image(s). Accept one (A), all "
                    "(Shift+A) or correct them; nothing is written until you accept.",
                    nullptr, boxes)
                     .arg(QFileInfo(m_drafts->weights()).fileName())
                     .arg(m_drafts->detections().size());
  if (otherClass > 0)
    text += QLatin1Char(' ') +
            tr("%n box(es) of classes this dataset does not have left out.", nullptr, otherClass);
  if (!m_drafts->errorText().isEmpty()) text += QLatin1Char('\n') + m_drafts->errorText();
  m_message->setText(text);
  showDrafts();
}

void LabelEditor::showDrafts() {
  m_canvas->setPredictions(m_model->predictions());
  m_canvas->setDrafts(m_model->showingDrafts());
  m_acceptAll->setVisible(m_model->showingDrafts());
  m_draftHelp->setVisible(m_model->showingDrafts());
  updateStatus();
}

bool LabelEditor::acceptAllDrafts() {
  if (!m_model->loaded() || !m_model->showingDrafts()) return false;
  auto boxes = m_model->boxes();
  const int before = int(boxes.size());
  for (const auto& d : m_model->predictions()) {
    if (m_canvas->isAccepted(d)) continue;
    studio::EditorBox b = d;
    b.conf = 1;
    b.row = -1;
    boxes.push_back(b);
  }
  if (boxes.size() == before) return false;
  edit(boxes, tr("Accept all drafts"));
  m_model->save();  // accepting is what writes a draft image's label file
  return true;
}

void LabelEditor::edit(const QVector<studio::EditorBox>& after, const QString& what) {
  if (after == m_model->boxes()) return;
  m_undo->push(new BoxesCommand(m_model, m_model->boxes(), after, what));
}

void LabelEditor::setClass(int cls) {
  if (cls < 0 || cls >= m_model->names().size()) return;
  m_canvas->setDrawClass(cls);
  {
    const QSignalBlocker block(m_classes);
    m_classes->setCurrentRow(cls);
  }
  const int sel = m_canvas->selected();
  if (sel < 0 || sel >= m_model->boxes().size() || m_model->boxes()[sel].cls == cls) return;
  auto boxes = m_model->boxes();
  boxes[sel].cls = cls;
  edit(boxes, tr("Change class"));
}

void LabelEditor::deleteSelected() {
  const int sel = m_canvas->selected();
  if (sel < 0 || sel >= m_model->boxes().size()) return;
  auto boxes = m_model->boxes();
  boxes.removeAt(sel);
  m_canvas->select(-1);
  edit(boxes, tr("Delete box"));
}

bool LabelEditor::acceptPrediction() {
  if (!m_model->currentImage() || !m_model->loaded()) return false;
  const auto& predictions = m_model->predictions();
  int pick = m_canvas->selectedPrediction();
  if (pick < 0) {
    // The strongest prediction that no label box of its class already covers.
    double best = -1;
    for (int i = 0; i < predictions.size(); ++i) {
      const auto& p = predictions[i];
      bool covered = false;
      for (const auto& b : m_model->boxes())
        covered = covered || (b.cls == p.cls && rectIou(b.rect, p.rect) >= 0.5);
      if (!covered && p.conf > best) {
        best = p.conf;
        pick = i;
      }
    }
  }
  if (pick < 0) return false;
  studio::EditorBox b = predictions[pick];
  b.conf = 1;
  b.row = -1;
  auto boxes = m_model->boxes();
  boxes.push_back(b);
  edit(boxes, tr("Accept prediction"));
  m_canvas->select(int(boxes.size()) - 1);
  if (m_model->showingDrafts()) m_model->save();  // an accepted draft is written at once
  return true;
}

void LabelEditor::next() {
  m_model->open(m_model->current() + 1);
}

void LabelEditor::previous() {
  m_model->open(m_model->current() - 1);
}

void LabelEditor::nextIssue() {
  const int i = m_model->nextIssue();
  if (i >= 0)
    m_model->open(i);
  else
    m_message->setText(tr("No more images with issues after this one."));
}

void LabelEditor::keyPressEvent(QKeyEvent* e) {
  const auto mods = e->modifiers() & ~Qt::KeypadModifier;
  const int key = e->key();
  if (mods == Qt::ControlModifier && key == Qt::Key_Z) return m_undo->undo();
  if ((mods == (Qt::ControlModifier | Qt::ShiftModifier) && key == Qt::Key_Z) ||
      (mods == Qt::ControlModifier && key == Qt::Key_Y))
    return m_undo->redo();
  if (mods == Qt::ControlModifier && key == Qt::Key_S) return m_model->save();
  if (mods == Qt::ControlModifier && key == Qt::Key_0) return m_canvas->setZoom(1);
  if (mods != Qt::NoModifier && mods != Qt::ShiftModifier) return QWidget::keyPressEvent(e);
  if (key >= Qt::Key_0 && key <= Qt::Key_9) return setClass(key == Qt::Key_0 ? 9 : key - Qt::Key_1);
  switch (key) {
    case Qt::Key_Delete:
    case Qt::Key_Backspace:
      return deleteSelected();
    case Qt::Key_A:
      if (mods == Qt::ShiftModifier)
        acceptAllDrafts();
      else
        acceptPrediction();
      return;
    case Qt::Key_Right:
    case Qt::Key_PageDown:
      return next();
    case Qt::Key_Left:
    case Qt::Key_PageUp:
      return previous();
    case Qt::Key_I:
      return nextIssue();
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      return m_canvas->setZoom(m_canvas->zoom() * 1.25);
    case Qt::Key_Minus:
      return m_canvas->setZoom(m_canvas->zoom() / 1.25);
    case Qt::Key_Escape:
      return m_canvas->select(-1);
    case Qt::Key_Tab:
      if (!m_model->boxes().isEmpty())
        m_canvas->select((m_canvas->selected() + 1) % int(m_model->boxes().size()));
      return;
    default:
      break;
  }
  QWidget::keyPressEvent(e);
}

void LabelEditor::closeEvent(QCloseEvent* e) {
  if (m_model->readOnly() && m_model->keptCount() > 0 && m_model->savedElsewhereTo().isEmpty() &&
      QMessageBox::question(this, tr("Unsaved label edits"),
                            tr("The dataset cannot be written and %n edited label file(s) are "
                               "only here. Close and drop them?",
                               nullptr, m_model->keptCount()),
                            QMessageBox::Discard | QMessageBox::Cancel,
                            QMessageBox::Cancel) != QMessageBox::Discard) {
    e->ignore();
    return;
  }
  if (m_model->loaded() && m_model->dirty() && !m_discard->isVisible() && !m_reload->isVisible()) {
    // Saved first; the window closes when the save has gone through.
    m_closeWhenSaved = true;
    m_model->save();
    e->ignore();
    return;
  }
  e->accept();
}

LabelEditor* openLabelEditor(QWidget* parent, const QString& root, const QStringList& names,
                             const QVector<studio::EditorImage>& images, int current) {
  auto* editor = new LabelEditor(parent);
  editor->setWindowFlag(Qt::Window);
  editor->setAttribute(Qt::WA_DeleteOnClose);
  editor->resize(1200, 800);
  editor->setImages(root, names, images, current);
  editor->show();
  return editor;
}

}  // namespace stave::widgets
