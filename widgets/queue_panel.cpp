#include "widgets/queue_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/studio/run/run_queue.h"

namespace stave::widgets {

QueuePanel::QueuePanel(studio::RunQueue* queue, std::function<std::pair<QString, int>()> choice,
                       QWidget* parent)
    : QWidget(parent), m_queue(queue), m_choice(std::move(choice)) {
  setObjectName(QStringLiteral("queuePanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_view = new QListView(this);
  m_view->setObjectName(QStringLiteral("queueView"));
  m_view->setModel(queue);
  m_view->setWordWrap(true);
  m_view->setAlternatingRowColors(true);
  layout->addWidget(m_view, 1);
  // In the list's place while it is empty: what the queue is and how a run gets on it.
  m_empty = new QLabel(tr("No runs queued.\n\n“Queue run” adds the Run page's config: it starts "
                          "when its GPUs are free, after the runs before it."),
                       this);
  m_empty->setObjectName(QStringLiteral("queueEmpty"));
  m_empty->setWordWrap(true);
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setEnabled(false);  // drawn grey, as a placeholder
  m_empty->setMargin(8);
  layout->addWidget(m_empty, 1);
  auto* buttons = new QHBoxLayout;
  auto* add = new QPushButton(tr("Queue run"), this);
  add->setObjectName(QStringLiteral("queueAdd"));
  add->setToolTip(tr("Queue the Run page's config: it starts when its GPUs are free"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  // Up and Down as small arrows: the dock stays narrow beside the pages.
  m_up = new QToolButton(this);
  m_up->setArrowType(Qt::UpArrow);
  m_up->setToolTip(tr("Move the selected run up: it starts earlier"));
  m_down = new QToolButton(this);
  m_down->setArrowType(Qt::DownArrow);
  m_down->setToolTip(tr("Move the selected run down"));
  m_cancel->setObjectName(QStringLiteral("queueCancel"));
  m_up->setObjectName(QStringLiteral("queueUp"));
  m_down->setObjectName(QStringLiteral("queueDown"));
  m_cancel->setToolTip(
      tr("Take the selected run off the queue (a running one is stopped on the Run page)"));
  buttons->addWidget(add);
  buttons->addWidget(m_cancel);
  buttons->addWidget(m_up);
  buttons->addWidget(m_down);
  buttons->addStretch(1);
  layout->addLayout(buttons);
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  layout->addWidget(m_note);

  connect(add, &QPushButton::clicked, this, &QueuePanel::queueChoice);
  auto row = [this] {
    return m_view->currentIndex().isValid() ? m_view->currentIndex().row() : -1;
  };
  connect(m_cancel, &QPushButton::clicked, this, [this, row] {
    m_queue->cancel(row());
    updateButtons();
  });
  connect(m_up, &QToolButton::clicked, this, [this, row] {
    const int r = row();
    if (m_queue->move(r, -1)) m_view->setCurrentIndex(m_queue->index(r - 1));
  });
  connect(m_down, &QToolButton::clicked, this, [this, row] {
    const int r = row();
    if (m_queue->move(r, +1)) m_view->setCurrentIndex(m_queue->index(r + 1));
  });
  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &QueuePanel::updateButtons);
  connect(queue, &QAbstractItemModel::dataChanged, this, &QueuePanel::updateButtons);
  connect(queue, &QAbstractItemModel::rowsInserted, this, &QueuePanel::updatePlaceholder);
  connect(queue, &QAbstractItemModel::rowsRemoved, this, &QueuePanel::updatePlaceholder);
  connect(queue, &QAbstractItemModel::modelReset, this, &QueuePanel::updatePlaceholder);
  connect(queue, &QAbstractItemModel::modelReset, this, [this] {
    m_note->setText(m_queue->loadProblem());
    updateButtons();
  });
  connect(queue, &studio::RunQueue::freeTextChanged, this, [this](const QString& text) {
    if (m_queue->loadProblem().isEmpty()) m_note->setText(text);
  });
  updateButtons();
  updatePlaceholder();
}

void QueuePanel::updatePlaceholder() {
  const bool empty = m_queue->rowCount() == 0;
  m_view->setVisible(!empty);
  m_empty->setVisible(empty);
}

bool QueuePanel::queueChoice() {
  const auto [config, nproc] = m_choice();
  QString error;
  if (!m_queue->enqueue(config, nproc, {}, &error)) {
    m_note->setText(error);
    return false;
  }
  return true;
}

void QueuePanel::updateButtons() {
  const QModelIndex i = m_view->currentIndex();
  const int state = i.isValid() ? i.data(studio::RunQueue::StateRole).toInt() : -1;
  const bool queued = state == int(studio::QueueEntry::State::Queued) ||
                      state == int(studio::QueueEntry::State::Waiting);
  m_cancel->setEnabled(queued);
  m_up->setEnabled(queued && i.row() > 0);
  m_down->setEnabled(queued && i.row() + 1 < m_queue->rowCount());
}

}  // namespace stave::widgets
